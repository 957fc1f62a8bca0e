import Foundation
import TesseraCore
import TesseraCrypto
import TesseraStore

/// Authorization codes, refresh tokens and the tokens they are exchanged for.
public struct Grants: Sendable {
    let domain: Domain

    /// Lifetimes in seconds: codes, access and ID tokens, refresh tokens.
    public static let codeLifetime: Int64 = 60
    public static let accessTokenLifetime: Int64 = 300
    public static let idTokenLifetime: Int64 = 300
    public static let refreshTokenLifetime: Int64 = 30 * 86_400

    /// Completes an approved login and writes its single-use authorization code, bound to
    /// the request's client, redirect URI, PKCE challenge and nonce; nil when the request
    /// was completed already (its code was issued).
    public static func issueCode(for record: AuthRequestRecord, tx: StoreTransaction, now: Int64) async throws -> String? {
        guard let serviceID = record.serviceID, let redirectURI = record.redirectURI, let userID = record.userID else {
            throw StoreError(.corrupt, "an approved login without service, redirect URI or user")
        }
        guard try await tx.completeAuthRequest(id: record.id) else { return nil }
        let code = Secrets.randomToken()
        try await tx.insertGrant(
            GrantRecord(
                digest: Secrets.digest(code), kind: "code", familyID: Secrets.randomToken(byteCount: 16), tenantID: record.tenantID,
                serviceID: serviceID, userID: userID, redirectURI: redirectURI, codeChallenge: record.codeChallenge,
                nonce: record.nonce, scope: record.scope, factors: record.factors ?? "[]",
                confirmedAttributes: record.confirmedAttributes ?? "[]", authTime: record.authTime ?? now,
                expiresAt: now + codeLifetime, usedAt: nil, revoked: 0))
        return code
    }

}

extension Domain {
    public var grants: Grants { Grants(domain: self) }
}
