import ArgumentParser
import TesseraAdminAPI

// What the command line needs of the admin API's generated types.

extension TenantChanges {
    /// Names no setting: nothing to send.
    var isEmpty: Bool { self == TenantChanges() }
}

/// A command-line option's text as one of the values the API document lists. The generator
/// adds an empty case to an enum that may be null; it stands for no value and is never one.
func documented<Value: RawRepresentable & CaseIterable>(_ text: String, option: String) throws -> Value where Value.RawValue == String {
    guard let value = Value(rawValue: text), !text.isEmpty else {
        let names = Value.allCases.map(\.rawValue).filter { !$0.isEmpty }
        let choices = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "") : names.joined()
        throw ValidationError("\(option) is \(choices)")
    }
    return value
}
