import Foundation
import Synchronization
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

    /// `decode`, remembering what recent texts decoded to: the same policies, factor
    /// lists and redirect URIs are read on every login, and JSONDecoder was a visible
    /// part of its CPU.
    public static func decodeRemembered<T: Decodable & Sendable>(_ type: T.Type, _ text: String) throws -> T {
        let key = DecodedColumns.Key(type: ObjectIdentifier(T.self), text: text)
        if let value = DecodedColumns.shared.value(for: key) as? T { return value }
        let value = try decode(T.self, text)
        DecodedColumns.shared.remember(value, for: key)
        return value
    }
}

/// Values decoded from JSON columns, by type and text. Two generations of at most
/// `limit` entries each: a full current generation becomes the previous one, and an
/// entry found there moves back, so texts read again and again stay while one-off texts
/// (a request's own parameters) pass through. Values are immutable and `Sendable`.
final class DecodedColumns: Sendable {
    struct Key: Hashable, Sendable {
        let type: ObjectIdentifier
        let text: String
    }

    private struct Generations {
        var current: [Key: any Sendable] = [:]
        var previous: [Key: any Sendable] = [:]
    }

    static let shared = DecodedColumns(limit: 512)
    /// Texts longer than this are decoded each time (and not kept).
    static let longestText = 2_048

    private let limit: Int
    private let generations = Mutex(Generations())

    init(limit: Int) {
        self.limit = limit
    }

    func value(for key: Key) -> (any Sendable)? {
        generations.withLock { generations in
            if let value = generations.current[key] { return value }
            guard let value = generations.previous.removeValue(forKey: key) else { return nil }
            Self.insert(value, for: key, into: &generations, limit: limit)
            return value
        }
    }

    func remember(_ value: any Sendable, for key: Key) {
        guard key.text.utf8.count <= Self.longestText else { return }
        generations.withLock { Self.insert(value, for: key, into: &$0, limit: limit) }
    }

    private static func insert(_ value: any Sendable, for key: Key, into generations: inout Generations, limit: Int) {
        if generations.current.count >= limit {
            generations.previous = generations.current
            generations.current = [:]
        }
        generations.current[key] = value
    }

    /// How many entries both generations hold (for tests).
    var count: Int { generations.withLock { $0.current.count + $0.previous.count } }
}

extension ActivationRecord {
    /// The factors this activation can prove: device and PIN always, biometrics and TOTP once enrolled.
    public var enrolledFactors: Set<FactorType> {
        var factors: Set<FactorType> = [.device, .pin]
        if biometricKey != nil { factors.insert(.biometric) }
        if sealedTOTPSecret != nil { factors.insert(.otp) }
        if securityKeyID != nil { factors.insert(.securitykey) }
        return factors
    }
}
