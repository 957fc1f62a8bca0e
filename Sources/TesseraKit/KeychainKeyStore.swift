#if canImport(Security) && canImport(CryptoKit) && canImport(LocalAuthentication)
import Foundation
import LocalAuthentication
import Security
import TesseraCrypto

/// The key store for Apple platforms: device and biometric keys in the Secure Enclave
/// (software keys where there is none, such as the simulator), their handles and the
/// small items as generic passwords in the Keychain, this device only.
@available(macOS 12, iOS 15, *)
public struct KeychainKeyStore: KeyStore {
    public let service: String

    public init(service: String = "org.tessera.sdk") { self.service = service }

    private func query(_ account: String) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            // The data protection keychain on macOS too, where the accessibility applies.
            kSecUseDataProtectionKeychain as String: true,
        ]
    }

    /// The Keychain's data protection class for an availability.
    private static func accessible(_ availability: ItemAvailability) -> CFString {
        availability == .whenUnlocked ? kSecAttrAccessibleWhenUnlockedThisDeviceOnly : kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
    }

    /// `deviceLocked` for the Keychain's answer that the item's class is closed now.
    private static func failure(_ status: OSStatus, _ what: String) -> TesseraKitError {
        status == errSecInteractionNotAllowed ? .deviceLocked : .keyStore("Keychain \(what) failed (\(status))")
    }

    /// Replaces in place, moving the item into `availability`'s class (a crash leaves the
    /// old value or the new one), or removes; a removal that fails (a locked device) throws
    /// rather than leave a secret behind.
    private func write(_ data: Data?, account: String, availability: ItemAvailability = .whenUnlocked) throws {
        guard let data else {
            let deleted = SecItemDelete(query(account) as CFDictionary)
            guard deleted == errSecSuccess || deleted == errSecItemNotFound else { throw Self.failure(deleted, "delete") }
            return
        }
        let changes: [String: Any] = [kSecValueData as String: data, kSecAttrAccessible as String: Self.accessible(availability)]
        let updated = SecItemUpdate(query(account) as CFDictionary, changes as CFDictionary)
        if updated == errSecSuccess { return }
        guard updated == errSecItemNotFound else { throw Self.failure(updated, "write") }
        var attributes = query(account)
        attributes[kSecValueData as String] = data
        attributes[kSecAttrAccessible as String] = Self.accessible(availability)
        let status = SecItemAdd(attributes as CFDictionary, nil)
        guard status == errSecSuccess else { throw Self.failure(status, "write") }
    }

    private func read(account: String) throws -> Data? {
        var attributes = query(account)
        attributes[kSecReturnData as String] = true
        attributes[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(attributes as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw Self.failure(status, "read") }
        return result as? Data
    }

    // Every decision (labels, what a removal takes, the stored format, which keys need
    // biometrics) is made by shared code the Linux tests cover: StoredName, StoredKey,
    // KeyProtection. What is left here is the Keychain and Secure Enclave calls.

    public func generateKey(label: String, protection: KeyProtection) async throws -> any P256Signer {
        try await generateKey(label: label, protection: protection, authenticatedBy: nil)
    }

    public func generateKey(label: String, protection: KeyProtection, authenticatedBy evaluation: BiometricEvaluation?) async throws
        -> any P256Signer
    {
        guard SecureEnclaveSigningKey.isAvailable else {
            let key = SoftwareSigningKey()
            try write(StoredKey.software(key.rawRepresentation).encoded, account: StoredName.key(label), availability: protection.availability)
            return key
        }
        var flags: SecAccessControlCreateFlags = [.privateKeyUsage]
        // A biometric key is released by the Secure Enclave only after Face ID / Touch ID,
        // and is invalidated when the enrolled biometrics change.
        if protection.requiresCurrentBiometrics { flags.insert(.biometryCurrentSet) }
        var error: Unmanaged<CFError>?
        guard let access = SecAccessControlCreateWithFlags(nil, Self.accessible(protection.availability), flags, &error) else {
            let reason = error.map { "\($0.takeRetainedValue())" } ?? "unknown"
            throw TesseraKitError.keyStore("cannot create the key's access control (\(reason))")
        }
        let key = try SecureEnclaveSigningKey(accessControl: access, authenticationContext: Self.context(evaluation))
        try write(StoredKey.secureEnclave(key.dataRepresentation).encoded, account: StoredName.key(label), availability: protection.availability)
        return key
    }

    public func key(label: String) async throws -> (any P256Signer)? {
        try await key(label: label, authenticatedBy: nil)
    }

    public func key(label: String, authenticatedBy evaluation: BiometricEvaluation?) async throws -> (any P256Signer)? {
        guard let stored = try read(account: StoredName.key(label)) else { return nil }
        switch StoredKey(stored) {
        case .secureEnclave(let handle)?:
            return try SecureEnclaveSigningKey(dataRepresentation: handle, authenticationContext: Self.context(evaluation))
        case .software(let raw)?:
            return try SoftwareSigningKey(rawRepresentation: raw)
        case nil:
            throw TesseraKitError.keyStore("a stored key is damaged")
        }
    }

    /// The evaluated `LAContext` a biometric check left, if any.
    private static func context(_ evaluation: BiometricEvaluation?) -> LAContext? {
        (evaluation?.authentication as? EvaluatedContext)?.context
    }

    public func setItem(_ data: Data?, label: String) async throws {
        try await setItem(data, label: label, availability: .whenUnlocked)
    }

    public func setItem(_ data: Data?, label: String, availability: ItemAvailability) async throws {
        guard let data else {
            for account in StoredName.cleared(label) { try write(nil, account: account) }
            return
        }
        try write(data, account: StoredName.item(label), availability: availability)
    }

    public func item(label: String) async throws -> Data? { try read(account: StoredName.item(label)) }

    /// Changes only the item's class (`kSecAttrAccessible`); its data stays as it is.
    public func moveItem(label: String, to availability: ItemAvailability) async throws {
        let changes = [kSecAttrAccessible as String: Self.accessible(availability)] as CFDictionary
        let status = SecItemUpdate(query(StoredName.item(label)) as CFDictionary, changes)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.failure(status, "move") }
    }

    public func itemLabels() async throws -> [String] { StoredName.itemLabels(from: try accounts()) }

    /// Every account of this service that can be read now, keys and items: class by class,
    /// so that a locked device still lists the after-first-unlock class. For a removal
    /// (`complete`), a closed class throws `deviceLocked` instead of being left out, so that
    /// nothing of it is left behind unseen.
    private func accounts(complete: Bool = false) throws -> [String] {
        var accounts: [String] = []
        for availability in [ItemAvailability.afterFirstUnlock, .whenUnlocked] {
            var attributes: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccessible as String: Self.accessible(availability),
                kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
                kSecUseDataProtectionKeychain as String: true,
            ]
            attributes[kSecReturnData as String] = false
            var result: CFTypeRef?
            let status = SecItemCopyMatching(attributes as CFDictionary, &result)
            // A locked device closes the when-unlocked class: list what is open.
            if status == errSecItemNotFound || (status == errSecInteractionNotAllowed && availability == .whenUnlocked && !complete) { continue }
            guard status == errSecSuccess, let items = result as? [[String: Any]] else { throw Self.failure(status, "listing") }
            accounts += items.compactMap { $0[kSecAttrAccount as String] as? String }
        }
        return accounts
    }

    public func removeAll(withPrefix prefix: String) async throws {
        for account in StoredName.removed(withPrefix: prefix, from: try accounts(complete: true)) { try write(nil, account: account) }
    }
}
#endif
