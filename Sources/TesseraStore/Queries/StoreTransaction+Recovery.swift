import SQLKit
import TesseraCore
import TesseraRecords

extension StoreTransaction {
    // MARK: Recovery codes

    /// Makes `digests` the user's recovery codes: the previous ones stop working.
    public func replaceRecoveryCodes(userID: UserID, digests: [String], now: Int64) async throws {
        try await db.raw("DELETE FROM recovery_codes WHERE user_id = \(bind: userID)").run()
        for digest in digests {
            try await db.raw(
                "INSERT INTO recovery_codes (user_id, digest, created_at) VALUES (\(bind: userID), \(bind: digest), \(bind: now))"
            ).run()
        }
    }

    /// Spends the user's unused code with this digest; `false` when there is none.
    public func useRecoveryCode(userID: UserID, digest: String, now: Int64) async throws -> Bool {
        try await db.raw(
            """
            UPDATE recovery_codes SET used_at = \(bind: now)
            WHERE user_id = \(bind: userID) AND digest = \(bind: digest) AND used_at IS NULL RETURNING digest
            """
        ).all().count == 1
    }

    /// How many of the user's codes are unused.
    public func recoveryCodesLeft(userID: UserID) async throws -> Int {
        struct Row: Decodable { let remaining: Int }
        return try await first("SELECT COUNT(*) AS remaining FROM recovery_codes WHERE user_id = \(bind: userID) AND used_at IS NULL", as: Row.self)?
            .remaining ?? 0
    }

    /// The user's consecutive wrong recovery codes and the lock they started (`Int64.max`: for good).
    public func recoveryLock(userID: UserID) async throws -> (failures: Int, lockedUntil: Int64?) {
        struct Row: Decodable {
            let failures: Int
            let lockedUntil: Int64?

            enum CodingKeys: String, CodingKey {
                case failures = "recovery_failures"
                case lockedUntil = "recovery_locked_until"
            }
        }
        let row = try await first("SELECT recovery_failures, recovery_locked_until FROM users WHERE id = \(bind: userID)", as: Row.self)
        return (row?.failures ?? 0, row?.lockedUntil)
    }

    public func setRecoveryLock(userID: UserID, failures: Int, lockedUntil: Int64?) async throws {
        try await db.raw(
            "UPDATE users SET recovery_failures = \(bind: failures), recovery_locked_until = \(bind: lockedUntil) WHERE id = \(bind: userID)"
        ).run()
    }

    // MARK: Recoveries

    public func insertRecovery(_ recovery: RecoveryRecord) async throws { try await insert("recoveries", recovery) }

    public func recovery(id: String) async throws -> RecoveryRecord? {
        try await first("SELECT * FROM recoveries WHERE id = \(bind: id)", as: RecoveryRecord.self)
    }

    /// A user's recoveries, newest first.
    public func recoveries(userID: UserID) async throws -> [RecoveryRecord] {
        try await all("SELECT * FROM recoveries WHERE user_id = \(bind: userID) ORDER BY created_at DESC, id", as: RecoveryRecord.self)
    }

    /// Moves a recovery from `from` to `to`; `false` when it was not in `from` (another call got there first).
    public func moveRecovery(id: String, from: String, to: String, approvedAt: Int64? = nil, approvedBy: String? = nil) async throws -> Bool {
        try await db.raw(
            """
            UPDATE recoveries SET status = \(bind: to), approved_at = COALESCE(\(bind: approvedAt), approved_at),
                approved_by = COALESCE(\(bind: approvedBy), approved_by)
            WHERE id = \(bind: id) AND status = \(bind: from) RETURNING id
            """
        ).all().count == 1
    }
}
