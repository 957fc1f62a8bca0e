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
