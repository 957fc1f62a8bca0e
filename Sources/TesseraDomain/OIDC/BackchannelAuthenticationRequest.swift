/// A backchannel authentication request (CIBA Core §7.1) as the edge read it from
/// `bc-authorize`'s form: each parameter this server knows in its own field, the values as
/// sent; `Backchannel.authenticate` checks them. The client's credentials are not part of it.
public struct BackchannelAuthenticationRequest: Sendable, Equatable {
    public var scope: String?
    /// The hints, of which a request names exactly one (`login_hint_token` is refused).
    public var loginHint: String?
    public var idTokenHint: String?
    public var loginHintToken: String?
    public var bindingMessage: String?
    public var acrValues: String?
    /// Seconds, as sent.
    public var requestedExpiry: String?
    public var clientNotificationToken: String?
    /// Signed authentication requests are refused.
    public var request: String?

    public init() {}

    /// The request a form holds (parsed by the edge: no parameter repeated).
    public init(parameters: [String: String]) {
        scope = parameters["scope"]
        loginHint = parameters["login_hint"]
        idTokenHint = parameters["id_token_hint"]
        loginHintToken = parameters["login_hint_token"]
        bindingMessage = parameters["binding_message"]
        acrValues = parameters["acr_values"]
        requestedExpiry = parameters["requested_expiry"]
        clientNotificationToken = parameters["client_notification_token"]
        request = parameters["request"]
    }
}
