import Foundation
import TesseraCore

/// JSON columns: written with sorted keys; a column that does not decode is a corrupt row.
public enum JSONCoding {
    public static func string(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    public static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw StoreError(.corrupt, "a stored JSON column does not decode")
        }
    }
}

extension ActivationRecord {
    /// The factors this activation can prove: device and PIN always, biometrics and TOTP once enrolled.
    public var enrolledFactors: Set<FactorType> {
        var factors: Set<FactorType> = [.device, .pin]
        if biometricKey != nil { factors.insert(.biometric) }
        if sealedTOTPSecret != nil { factors.insert(.otp) }
        return factors
    }
}
