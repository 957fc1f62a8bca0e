/// How an authentication request came to be, beside the browser login (no flow).
public enum RequestFlow: String, Codable, Sendable {
    /// A service's backchannel request (OpenID CIBA), bound to a user.
    case ciba
    /// An app's login for its own backend, already claimed by the calling activation.
    case inApp = "in_app"
}

/// How a CIBA client learns that its request was answered.
public enum BackchannelMode: String, Codable, Sendable {
    case poll, ping
}

/// Whether an activation can be used. A revoked or deleted activation has no row; the
/// admin API shows `revoked` for the one it just removed.
public enum ActivationStatus: String, Codable, Sendable {
    case active
    case revoked
}

/// What a stored grant is: an authorization code or a refresh token.
public enum GrantKind: String, Codable, Sendable {
    case code
    case refresh
}

/// What an admin API key may do: `admin` everything in its scope; `helpdesk` read, unlock
/// and revoke activations, end sessions and invite; `auditor` read only.
public enum AdminRole: String, Codable, Sendable, CaseIterable {
    case admin
    case helpdesk
    case auditor
    /// A directory's provisioning client (SCIM) for one tenant: creates, changes and
    /// deactivates that tenant's users and groups, and nothing else.
    case provisioner
}

/// Why a session ended before its time.
public enum SessionEndReason: String, Codable, Sendable, CaseIterable {
    /// The client revoked it (RFC 7009), or an operator ended it.
    case revoked
    /// A spent code or refresh token was presented again: it was copied.
    case reuse
    /// The device whose login it stands on was revoked, deleted, unregistered or retired.
    case deviceRemoved = "device_removed"
    /// Its user was disabled or deleted.
    case userRemoved = "user_removed"
    /// Its service was deleted.
    case serviceRemoved = "service_removed"
    /// The security key (passkey) whose login it stands on was removed.
    case securityKeyRemoved = "security_key_removed"
    /// The service sent the user to the end-session endpoint (RP-initiated logout).
    case logout
    /// The database was restored from a backup (`tessera restore`): every session it held
    /// is older than the world and ended, so its user signs in again.
    case restored
}

/// How an attempt or an account process ended, as the history records it.
public enum AttemptOutcome: String, Codable, Sendable, CaseIterable {
    case approved
    case failed
    case locked
    case denied
    case completed
}

/// The JWS algorithms a tenant signs with (JWA, RFC 7518 §3 and RFC 8037): ES256 for
/// access tokens and by default, RS256 for the clients OpenID Connect Discovery expects
/// to support it, EdDSA (Ed25519) for those that ask for it.
public enum SigningAlgorithm: String, CaseIterable, Codable, Sendable {
    case es256 = "ES256"
    case rs256 = "RS256"
    case eddsa = "EdDSA"
}
