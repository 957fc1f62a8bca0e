import SQLKit
import TesseraRecords

/// A column whose values are sealed under the master key, each bound to its row (the
/// server seals with a context naming the purpose and the row's key). `tessera rekey`
/// re-seals every column listed here; a new sealed column must be added.
public enum SealedColumn: String, CaseIterable, Sendable {
    /// `signing_keys.sealed_key`: tenants' ES256 private keys, by `kid`.
    case signingKeys = "signing_keys"
    /// `activations.sealed_pin_key`: each activation's PIN key `K`.
    case activationPinKeys = "activation_pin_keys"
    /// `activations.sealed_totp_secret`: TOTP secrets of activations that enrolled OTP.
    case activationTOTPSecrets = "activation_totp_secrets"
    /// `invitations.sealed_pin_key`: the PIN key new activation data expects.
    case invitationPinKeys = "invitation_pin_keys"
    /// `auth_requests.sealed_notification_token`: ping-mode clients' notification tokens.
    case notificationTokens = "ciba_notification_tokens"
    /// `sealed_checks.sealed`: the database's seal, a known value the first node sealed.
    case masterKeyCheck = "master_key_check"
    /// `identity_providers.sealed_client_secret`: Tessera's client secrets at external providers.
    case identityProviderSecrets = "identity_provider_secrets"
    /// `webhooks.sealed_secret`: the secrets webhook deliveries are signed with.
    case webhookSecrets = "webhook_secrets"
    /// `messages.sealed_content`: what the outbox's messages say (invitation links among it).
    case messageContents = "message_contents"

    var table: String {
        switch self {
        case .signingKeys: "signing_keys"
        case .activationPinKeys, .activationTOTPSecrets: "activations"
        case .invitationPinKeys: "invitations"
        case .notificationTokens: "auth_requests"
        case .masterKeyCheck: "sealed_checks"
        case .identityProviderSecrets: "identity_providers"
        case .webhookSecrets: "webhooks"
        case .messageContents: "messages"
        }
    }

    /// The row's key, which the sealing context names.
    var keyColumn: String { self == .signingKeys ? "kid" : "id" }

    var column: String {
        switch self {
        case .signingKeys: "sealed_key"
        case .activationPinKeys, .invitationPinKeys: "sealed_pin_key"
        case .activationTOTPSecrets: "sealed_totp_secret"
        case .notificationTokens: "sealed_notification_token"
        case .masterKeyCheck: "sealed"
        case .identityProviderSecrets: "sealed_client_secret"
        case .webhookSecrets: "sealed_secret"
        case .messageContents: "sealed_content"
        }
    }
}

/// One sealed value and the key of its row.
public struct SealedValue: Sendable {
    public let rowID: String
    public let sealed: String
}

extension StoreTransaction {
    /// Every value of a sealed column (rows without one are skipped).
    public func sealedValues(in column: SealedColumn) async throws -> [SealedValue] {
        try await db.raw(
            """
            SELECT \(ident: column.keyColumn) AS row_id, \(ident: column.column) AS sealed FROM \(ident: column.table)
            WHERE \(ident: column.column) IS NOT NULL ORDER BY \(ident: column.keyColumn)
            """
        ).all().map { row in
            SealedValue(rowID: try row.decode(column: "row_id", as: String.self), sealed: try row.decode(column: "sealed", as: String.self))
        }
    }

    /// Replaces one sealed value if it is still `expected`; `false` when it is not.
    public func replaceSealedValue(in column: SealedColumn, rowID: String, expected: String, with sealed: String) async throws -> Bool {
        let rows = try await db.raw(
            """
            UPDATE \(ident: column.table) SET \(ident: column.column) = \(bind: sealed)
            WHERE \(ident: column.keyColumn) = \(bind: rowID) AND \(ident: column.column) = \(bind: expected)
            RETURNING \(ident: column.keyColumn)
            """
        ).all()
        return rows.count == 1
    }
}

extension StoreTransaction {
    /// For `tessera rekey` on PostgreSQL: takes the serving lock alone until this
    /// transaction ends, or throws when a node holds it (every running node does; see
    /// `SQLStore.serve`). Nothing on SQLite, where the data directory's lock file does this.
    public func excludeServingNodes() async throws {
        guard isPostgres else { return }
        let free = try await db.raw("SELECT pg_try_advisory_xact_lock(\(literal: SQLStore.servingLock)) AS free")
            .first(decodingColumn: "free", as: Bool.self)
        guard free == true else {
            throw StoreError(.conflict, "a tessera serve node is running on this database: stop every node before tessera rekey")
        }
    }
}

extension StoreTransaction {
    /// The database's master-key seal, if a node has written it.
    public func masterKeySeal() async throws -> String? {
        struct Row: Decodable { let sealed: String }
        return try await first("SELECT sealed FROM sealed_checks WHERE id = 'master-key'", as: Row.self)?.sealed
    }

    /// Writes the seal unless one exists; `false` when another node's came first.
    public func recordMasterKeySeal(_ sealed: String) async throws -> Bool {
        try await db.raw(
            "INSERT INTO sealed_checks (id, sealed) VALUES ('master-key', \(bind: sealed)) ON CONFLICT (id) DO NOTHING RETURNING id"
        ).all().count == 1
    }
}
