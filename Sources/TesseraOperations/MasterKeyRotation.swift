import Foundation
import Logging
import TesseraCrypto
import TesseraDomain
import TesseraRecords
import TesseraStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces the master key (`tessera rekey`): every value sealed under it in the database
/// is opened with the current key and sealed again, with the same context, under a new
/// one, in one transaction; only then does the new key become `master.key`, the old one
/// staying beside it as `master.key.previous`.
///
/// Offline: no node may run meanwhile (a running node keeps sealing with the old key,
/// and nodes started afterwards need the new one: copy `master.key` to each). A server
/// on the same data directory holds its lock file, and on PostgreSQL every node holds
/// an advisory lock shared; either makes the rekey refuse before it changes anything.
///
/// The new key is written to `master.key.next` (and flushed to disk) before the
/// transaction commits, so no moment exists at which the database is sealed under a key
/// that is nowhere on disk. If anything fails before the commit, the database and
/// `master.key` are as they were and `master.key.next` is removed. A run that stops after
/// the commit leaves `master.key.next` behind; the next run finds out from the data
/// whether that key is in use, and finishes the swap or drops the key.
public enum MasterKeyRotation {
    /// What a rotation did.
    public struct Report: Encodable, Sendable {
        /// Values sealed again, by sealed column (`SealedColumn`'s raw values).
        public let resealed: [String: Int]
        /// This run only finished an earlier one that had committed but not replaced
        /// `master.key` (nothing was sealed again now).
        public let finishedEarlierRun: Bool
        public let masterKey: String
        public let previousMasterKey: String

        enum CodingKeys: String, CodingKey {
            case resealed
            case finishedEarlierRun = "finished_earlier_run"
            case masterKey = "master_key"
            case previousMasterKey = "previous_master_key"
        }
    }

    /// Opens the store of `dataDirectory` (its SQLite file, or `databaseURL`) as
    /// `tessera serve` does and replaces the master key in `dataDirectory`.
    public static func run(dataDirectory: String, databaseURL: String?, logger: Logger) async throws -> Report {
        let directory = DataDirectory(path: dataDirectory)
        return try await directory.withExistingStore(databaseURL: databaseURL, logger: logger) { current, store in
            // No server on this data directory meanwhile (on PostgreSQL, the transaction
            // also makes sure no node on another machine serves the database).
            let lock = try DataDirectoryLock.take(.rekeying, in: directory)
            defer { lock.release() }
            return try await rotate(store: store, directory: directory, current: current, logger: logger)
        }
    }

    static func rotate(store: SQLStore, directory: DataDirectory, current: Data, logger: Logger) async throws -> Report {
        let currentBox = try SecretBox(masterKey: current)
        // A next key that does not read whole was never used: the transaction begins only
        // after it is written and synced.
        if FileManager.default.fileExists(atPath: directory.nextMasterKeyPath),
            (try? directory.readKey(at: directory.nextMasterKeyPath)) == nil
        {
            try FileManager.default.removeItem(atPath: directory.nextMasterKeyPath)
            logger.notice("removed an incomplete key file of an earlier rekey", metadata: ["path": "\(directory.nextMasterKeyPath)"])
        }
        if let pending = try directory.readKey(at: directory.nextMasterKeyPath) {
            switch try await keyUse(of: try SecretBox(masterKey: pending), in: store) {
            case .complete:
                try directory.installNextMasterKey(replacing: current)
                logger.notice("finished an earlier rekey that had committed", metadata: ["path": "\(directory.masterKeyPath)"])
                return report(directory, resealed: [:], finishedEarlierRun: true)
            case .unused:
                try FileManager.default.removeItem(atPath: directory.nextMasterKeyPath)
            case .partial:
                throw ServerStartupError(
                    "some sealed values open under \(directory.nextMasterKeyPath) and others do not (was a server running during "
                        + "an earlier rekey?): nothing was changed; keep both key files and investigate")
            }
        }

        let next = SecretBox.makeMasterKey()
        let nextBox = try SecretBox(masterKey: next)
        do {
            try directory.writeSecretDurably(Base64URL.encode(next) + "\n", to: directory.nextMasterKeyPath)
        } catch {
            try? FileManager.default.removeItem(atPath: directory.nextMasterKeyPath)
            throw error
        }
        let counts: [SealedColumn: Int]
        do {
            counts = try await store.transaction { tx in
                try await tx.excludeServingNodes()
                var done: [SealedColumn: Int] = [:]
                for column in SealedColumn.allCases {
                    let values = try await tx.sealedValues(in: column)
                    for value in values {
                        let context = SealingContext.of(column, rowID: value.rowID)
                        let plaintext: Data
                        do {
                            plaintext = try currentBox.open(value.sealed, context: context)
                        } catch {
                            throw ServerStartupError(
                                "\(column.rawValue) of row \(value.rowID) does not open under \(directory.masterKeyPath): "
                                    + "nothing was changed")
                        }
                        let resealed = try nextBox.seal(plaintext, context: context)
                        guard try await tx.replaceSealedValue(in: column, rowID: value.rowID, expected: value.sealed, with: resealed)
                        else {
                            throw ServerStartupError(
                                "\(column.rawValue) of row \(value.rowID) changed during the rekey: is a server running?")
                        }
                    }
                    done[column] = values.count
                }
                return done
            }
        } catch {
            // A commit can succeed although an error comes back (a connection lost while
            // committing): the next key goes only when the data shows it is not in use.
            if let verdict = try? await keyUse(of: nextBox, in: store), verdict == .unused {
                try? FileManager.default.removeItem(atPath: directory.nextMasterKeyPath)
                throw error
            }
            throw ServerStartupError(
                "the rekey failed (\(error)); \(directory.nextMasterKeyPath) is kept because the database may hold values sealed "
                    + "under it: run tessera rekey again to finish or undo it")
        }
        try directory.installNextMasterKey(replacing: current)
        return report(directory, resealed: counts, finishedEarlierRun: false)
    }

    static func report(_ directory: DataDirectory, resealed: [SealedColumn: Int], finishedEarlierRun: Bool) -> Report {
        Report(
            resealed: Dictionary(uniqueKeysWithValues: resealed.map { ($0.key.rawValue, $0.value) }),
            finishedEarlierRun: finishedEarlierRun, masterKey: directory.masterKeyPath,
            previousMasterKey: directory.previousMasterKeyPath)
    }

    /// How many of the store's sealed values open under a key: none (also when there are
    /// none at all), some, or every one.
    enum KeyUse { case unused, partial, complete }

    static func keyUse(of box: SecretBox, in store: SQLStore) async throws -> KeyUse {
        let (opened, total) = try await sealedValuesOpened(by: box, in: store)
        if opened == 0 { return .unused }
        return opened == total ? .complete : .partial
    }

    /// How many of the database's sealed values `box` opens, of how many.
    static func sealedValuesOpened(by box: SecretBox, in store: SQLStore) async throws -> (opened: Int, total: Int) {
        let values: [SealedColumn: [SealedValue]] = try await store.read { tx in
            var values: [SealedColumn: [SealedValue]] = [:]
            for column in SealedColumn.allCases { values[column] = try await tx.sealedValues(in: column) }
            return values
        }
        var total = 0
        var opened = 0
        for (column, list) in values {
            for value in list {
                total += 1
                if (try? box.open(value.sealed, context: SealingContext.of(column, rowID: value.rowID))) != nil { opened += 1 }
            }
        }
        return (opened, total)
    }
}

extension DataDirectory {
    /// The new master key between its making and the swap.
    var nextMasterKeyPath: String { masterKeyPath + ".next" }
    /// The master key the last rekey replaced (backups taken before it need it).
    var previousMasterKeyPath: String { masterKeyPath + ".previous" }

    /// Makes `master.key.next` the master key, keeping `current` as `master.key.previous`.
    /// Each step may be repeated, so a run that stops half-way is finished by the next.
    func installNextMasterKey(replacing current: Data) throws {
        try writeSecretDurably(Base64URL.encode(current) + "\n", to: previousMasterKeyPath)
        guard rename(nextMasterKeyPath, masterKeyPath) == 0 else {
            throw ServerStartupError("cannot move \(nextMasterKeyPath) to \(masterKeyPath): \(Self.lastError())")
        }
        try syncDirectory()
    }

    /// Writes a secret file of this directory that is its owner's only from the first byte
    /// (mode 0600, not changed afterwards) and is on the disk, name and all, when this returns.
    func writeSecretDurably(_ text: String, to file: String) throws {
        guard unlink(file) == 0 || errno == ENOENT else { throw ServerStartupError("cannot replace \(file): \(Self.lastError())") }
        let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw ServerStartupError("cannot write \(file): \(Self.lastError())") }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else {
            throw ServerStartupError("cannot write \(file): \(Self.lastError())")
        }
        try syncDirectory()
    }

    /// Makes the directory's entries (a new file, a rename) durable.
    private func syncDirectory() throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw ServerStartupError("cannot open \(path): \(Self.lastError())") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw ServerStartupError("cannot flush \(path): \(Self.lastError())") }
    }

    /// The text of `code` (by default the last system call's error).
    static func lastError(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
}

extension DataDirectory {
    /// For offline commands (rekey, seed): `body` with the master key and the store of a
    /// server that has run with this data directory (its SQLite file, or the PostgreSQL
    /// database at `databaseURL`); the store is closed afterwards, whatever happens.
    func withExistingStore<R: Sendable>(
        databaseURL: String?, logger: Logger, _ body: (_ masterKey: Data, _ store: SQLStore) async throws -> R
    ) async throws -> R {
        guard let masterKey = try readKey(at: masterKeyPath) else {
            throw ServerStartupError("\(masterKeyPath) does not exist: give the --data-dir of a server that has run")
        }
        if let databaseURL {
            return try await SQLStore.withPostgres(url: databaseURL, logger: logger, maximumConnections: 2) { try await body(masterKey, $0) }
        }
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw ServerStartupError("\(databasePath) does not exist (for a server on PostgreSQL, give --database)")
        }
        let store = try await SQLStore.openSQLite(path: databasePath, logger: logger)
        do {
            let result = try await body(masterKey, store)
            try await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }
}
