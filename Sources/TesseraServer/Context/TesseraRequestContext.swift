import Hummingbird
import NIOCore
import TesseraDomain
import TesseraRecords

/// The per-request state every handler gets: Hummingbird's core storage, plus what the
/// middleware established before the handler runs — the tenant a `t/:tenant` path names,
/// the device a `Tessera-Device` token proved, the OAuth client that authenticated (the
/// admin API's caller travels as `AdminCall`).
/// A handler asks with `requireTenant()` and friends; it never resolves them itself.
public struct TesseraRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection's peer (a proxy's, behind one: see `sourceAddress`).
    public let remoteAddress: SocketAddress?
    /// What the middleware established, behind one reference. The context is copied at
    /// every middleware's hop and held in each one's async frame while the request runs;
    /// the records inline made it kilobytes, which a connection's task keeps for as long
    /// as the connection lives (a waiting long poll held about 120 KiB of frames).
    private var established = Established.Box(Established())

    /// Set by `TenantResolution` on routes under `t/:tenant`.
    var tenant: TenantRecord? {
        get { established.value.tenant }
        set { established = established.with { $0.tenant = newValue } }
    }
    /// Set by `DeviceAuthentication`: the device whose signed token checked out (not spent yet).
    var device: DeviceCaller? {
        get { established.value.device }
        set { established = established.with { $0.device = newValue } }
    }
    /// Set by `ClientAuthentication`: the service that authenticated, and the form it sent.
    var client: AuthenticatedClient? {
        get { established.value.client }
        set { established = established.with { $0.client = newValue } }
    }
    /// Set by `ConsoleSession`: the signed-in operator's session, and a form it posted
    /// (its CSRF token checked).
    var webSession: WebSessions.Current? {
        get { established.value.webSession }
        set { established = established.with { $0.webSession = newValue } }
    }
    var form: [String: String]? {
        get { established.value.form }
        set { established = established.with { $0.form = newValue } }
    }
    /// The files of a `multipart/form-data` form, by field name.
    var files: [String: MultipartForm.File] {
        get { established.value.files }
        set { established = established.with { $0.files = newValue } }
    }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The tenant of the route; its absence is a wiring mistake, not the caller's.
    func requireTenant() throws -> TenantRecord {
        guard let tenant else { throw MissingContext("tenant") }
        return tenant
    }

    /// The device of a route that acts for the activation: a token of its background key,
    /// which only reads, is refused.
    func requireDevice() throws -> DeviceCaller {
        let device = try requireReadingDevice()
        guard !device.background else {
            throw DomainError(.forbidden, .accessDenied, "a background key only reads pending requests and their state")
        }
        return device
    }

    /// The device of a route that only reads pending requests or their state: a token of
    /// the device key or of the background key.
    func requireReadingDevice() throws -> DeviceCaller {
        guard let device else { throw MissingContext("device") }
        return device
    }

    func requireWebSession() throws -> WebSessions.Current {
        guard let webSession else { throw MissingContext("web session") }
        return webSession
    }

    func requireForm() throws -> [String: String] {
        guard let form else { throw MissingContext("form") }
        return form
    }

    func requireClient() throws -> AuthenticatedClient {
        guard let client else { throw MissingContext("client") }
        return client
    }

    /// A route was registered without the middleware it relies on: a 500, logged once.
    struct MissingContext: Error, CustomStringConvertible {
        let what: String
        init(_ what: String) { self.what = what }
        var description: String { "no \(what) in the request context: the route lacks its middleware" }
    }
}

/// The request's state the middleware sets, each part once or twice a request.
private struct Established: Sendable {
    var tenant: TenantRecord?
    var device: DeviceCaller?
    var client: AuthenticatedClient?
    var webSession: WebSessions.Current?
    var form: [String: String]?
    var files: [String: MultipartForm.File] = [:]

    /// Never changed in place: a change makes a new box, so a copy of the context made
    /// before it keeps what it saw.
    final class Box: Sendable {
        let value: Established
        init(_ value: Established) { self.value = value }
        func with(_ change: (inout Established) -> Void) -> Box {
            var changed = value
            change(&changed)
            return Box(changed)
        }
    }
}

/// An OAuth client that proved itself at a token-style endpoint, with the form it sent
/// (already read, since client_secret_post authenticates inside it).
struct AuthenticatedClient: Sendable {
    let service: ServiceRecord
    let form: [String: String]
}
