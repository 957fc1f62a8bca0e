#if canImport(Security) && canImport(CryptoKit)
import Foundation
import Security
import TesseraCrypto

/// The key store for Apple platforms: device and biometric keys in the Secure Enclave
/// (software keys where there is none, such as the simulator), their handles and the
/// small items as generic passwords in the Keychain, this device only.
@available(macOS 14, iOS 17, *)
public struct KeychainKeyStore: KeyStore {
    public let service: String

    public init(service: String = "org.tessera.sdk") { self.service = service }

    private func query(_ account: String) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
    }

    private func write(_ data: Data?, account: String) throws {
        SecItemDelete(query(account) as CFDictionary)
        guard let data else { return }
        var attributes = query(account)
        attributes[kSecValueData as String] = data
        attributes[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        let status = SecItemAdd(attributes as CFDictionary, nil)
        guard status == errSecSuccess else { throw TesseraKitError.keyStore("Keychain write failed (\(status))") }
    }

    private func read(account: String) throws -> Data? {
        var attributes = query(account)
        attributes[kSecReturnData as String] = true
        attributes[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(attributes as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw TesseraKitError.keyStore("Keychain read failed (\(status))") }
        return result as? Data
    }

    public func generateKey(label: String, protection: KeyProtection) async throws -> any P256Signer {
        if SecureEnclaveSigningKey.isAvailable {
            var flags: SecAccessControlCreateFlags = [.privateKeyUsage]
            // A biometric key is released by the Secure Enclave only after Face ID / Touch ID,
            // and is invalidated when the enrolled biometrics change.
            if protection == .currentBiometrics { flags.insert(.biometryCurrentSet) }
            var error: Unmanaged<CFError>?
            guard let access = SecAccessControlCreateWithFlags(
                nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, &error)
            else { throw TesseraKitError.keyStore("cannot create the key's access control") }
            let key = try SecureEnclaveSigningKey(accessControl: access)
            try write(Data([1]) + key.dataRepresentation, account: StoredName.key(label))
            return key
        }
        let key = SoftwareSigningKey()
        try write(Data([0]) + key.rawRepresentation, account: StoredName.key(label))
        return key
    }

    public func key(label: String) async throws -> (any P256Signer)? {
        guard let stored = try read(account: StoredName.key(label)), let kind = stored.first else { return nil }
        let body = stored.dropFirst()
        return kind == 1 ? try SecureEnclaveSigningKey(dataRepresentation: Data(body)) : try SoftwareSigningKey(rawRepresentation: Data(body))
    }

    public func setItem(_ data: Data?, label: String) async throws {
        guard let data else {
            for account in StoredName.cleared(label) { try write(nil, account: account) }
            return
        }
        try write(data, account: StoredName.item(label))
    }

    public func item(label: String) async throws -> Data? { try read(account: StoredName.item(label)) }

    public func itemLabels() async throws -> [String] {
        try accounts().filter { $0.hasPrefix("item-") }.map { String($0.dropFirst(5)) }.sorted()
    }

    /// Every account of this service: keys and items.
    private func accounts() throws -> [String] {
        var attributes: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        attributes[kSecReturnData as String] = false
        var result: CFTypeRef?
        let status = SecItemCopyMatching(attributes as CFDictionary, &result)
        if status == errSecItemNotFound { return [] }
        guard status == errSecSuccess, let items = result as? [[String: Any]] else {
            throw TesseraKitError.keyStore("Keychain listing failed (\(status))")
        }
        return items.compactMap { $0[kSecAttrAccount as String] as? String }
    }

    public func removeAll(withPrefix prefix: String) async throws {
        for account in StoredName.removed(withPrefix: prefix, from: try accounts()) { try write(nil, account: account) }
    }
}
#endif
