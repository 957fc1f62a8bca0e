import TesseraCrypto
import TesseraDomain
import TesseraStore

/// Refuses a master key that does not open the database's signing keys (a node given the
/// old `master.key` after a rekey, or another deployment's): it would fail on every token.
public func checkMasterKey(_ box: SecretBox, opens store: SQLStore) async throws {
    guard let key = try await store.read({ try await $0.anySigningKey() }) else { return }
    guard (try? box.open(key.sealedKey, context: SealingContext.signingKey(kid: key.kid))) != nil else {
        throw ServerStartupError(
            "the master key in this --data-dir does not open the database's signing keys: a stale master.key after a rekey, "
                + "or the wrong --data-dir or --database?")
    }
}

