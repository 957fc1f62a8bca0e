import Foundation
import TesseraCrypto
import TesseraDomain
import TesseraRecords
import TesseraStore

/// Refuses a master key that is not the database's: a node given the old `master.key`
/// after a rekey, or another deployment's, would fail on every token. The first node
/// to start on a database seals a known value under its key (`sealed_checks`); every
/// later start must open it, so two nodes with different keys cannot both start on one
/// database even before it holds a tenant. Databases from before the seal are checked
/// by a signing key first.
public func checkMasterKey(_ box: SecretBox, opens store: SQLStore) async throws {
    if let key = try await store.read({ try await $0.anySigningKey() }),
        (try? box.open(key.sealedKey, context: SealingContext.signingKey(kid: key.kid))) == nil
    {
        throw ServerStartupError(
            "the master key in this --data-dir does not open the database's signing keys: a stale master.key after a rekey, "
                + "or the wrong --data-dir or --database?")
    }
    let context = SealingContext.masterKeyCheck(id: "master-key")
    let seal = try await store.transaction { tx in
        if let existing = try await tx.masterKeySeal() { return existing }
        let mine = try box.seal(Data(MasterKeySeal.value.utf8), context: context)
        if try await tx.recordMasterKeySeal(mine) { return mine }
        return try await tx.masterKeySeal() ?? mine
    }
    guard let opened = try? box.open(seal, context: context), opened == Data(MasterKeySeal.value.utf8) else {
        throw ServerStartupError(
            "the master key in this --data-dir is not the one this database was first sealed with (another node's, or a stale "
                + "master.key after a rekey): every node of a database needs the same master.key; or is it the wrong --data-dir "
                + "or --database?")
    }
}

enum MasterKeySeal {
    static let value = "tessera master key"
}
