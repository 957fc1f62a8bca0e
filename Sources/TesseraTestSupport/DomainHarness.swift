import Foundation
import Logging
import Synchronization
import TesseraAdminAPI
import TesseraCore
import TesseraCrypto
import TesseraDomain
import TesseraRecords
import TesseraStore

/// The domain over a temporary SQLite file, with a hand-moved clock and a notifier that
/// records what it is told: no HTTP, no sockets.
package struct Harness {
    package let store: SQLStore
    package let domain: Domain
    package let clock: TestClock
    package let notices: RecordingNotifier
    package let logger = Logger(label: "domain-test")

    package static func make() async throws -> Harness {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("domain-\(UUID().uuidString).sqlite").path
        let store = try await SQLStore.openSQLite(path: path, logger: Logger(label: "domain-test"))
        let clock = TestClock()
        let notices = RecordingNotifier()
        let domain = Domain(
            store: store, box: try SecretBox(masterKey: SecretBox.makeMasterKey()),
            settings: DomainSettings(publicURL: "https://id.example", requestLifetime: 300, invitationLifetime: 86_400, backchannelInterval: 5),
            notifier: notices, now: { clock.now() })
        return Harness(store: store, domain: domain, clock: clock, notices: notices)
    }

    package func close() async throws { try await store.close() }

    /// A tenant with the given lockout policy, a confidential service and one user.
    package func tenant(lockout: String = #"{"free_attempts":0,"waits":[30,60],"permanent_after":3}"#) async throws
        -> (TenantRecord, ServiceRecord, secret: String)
    {
        let input = try JSONDecoder().decode(TenantCreation.self, from: Data(#"{"name":"demo","lockout":\#(lockout)}"#.utf8))
        _ = try await domain.administration().createTenant(input, logger: logger)
        let tenant = try await domain.tenant(named: "demo")
        let serviceInput = try JSONDecoder().decode(
            Components.Schemas.CreateService.self,
            from: Data(
                #"{"name":"Shop","redirect_uris":["https://shop.example/cb"],"policy":"device+pin","attributes":["email"],"number_matching":false}"#
                    .utf8))
        let created = try JSONDecoder().decode(
            [String: JSONValue].self, from: JSONEncoder().encode(try await domain.administration().createService(serviceInput, tenant: tenant, logger: logger)))
        guard case .string(let clientID) = created["client_id"], case .string(let secret) = created["client_secret"] else {
            throw TestSupportError("no client id or secret")
        }
        let service = try await domain.authenticateClient(clientID: clientID, secret: secret, tenant: tenant)
        let user = try JSONDecoder().decode(Components.Schemas.CreateUser.self, from: Data(#"{"username":"alice","attributes":{"email":"a@example.com"}}"#.utf8))
        _ = try await domain.administration().createUser(user, tenant: tenant, logger: logger)
        return (tenant, service, secret)
    }

    /// An invitation code for `alice`.
    package func invitationCode(_ tenant: TenantRecord) async throws -> String {
        let input = try JSONDecoder().decode(Components.Schemas.CreateInvitation.self, from: Data(#"{"username":"alice"}"#.utf8))
        let view = try JSONDecoder().decode(
            [String: JSONValue].self, from: JSONEncoder().encode(try await domain.administration().invite(input, tenant: tenant, logger: logger)))
        guard case .string(let url) = view["url"], let code = URLComponents(string: url)?.queryItems?.first(where: { $0.name == "code" })?.value
        else { throw TestSupportError("no invitation URL") }
        return code
    }

    /// A browser login request of the service; its id.
    package func loginRequest(_ service: ServiceRecord, tenant: TenantRecord) async throws -> RequestID {
        let start = try await domain.browserLogins.start(
            AuthorizationRequest(parameters: [
                "client_id": service.clientID.rawValue, "redirect_uri": "https://shop.example/cb", "response_type": "code", "scope": "openid email",
            ]), tenant: tenant)
        guard case .started(let login) = start else { throw TestSupportError("the login was refused") }
        return login.requestID
    }
}

extension Harness {
    /// An activated phone's approved login of `service`, completed with its code.
    package func approvedCode(_ service: ServiceRecord, tenant: TenantRecord) async throws -> String {
        var phone = Phone()
        try await phone.activate(code: try await invitationCode(tenant), harness: self, tenant: tenant)
        let requestID = try await loginRequest(service, tenant: tenant)
        _ = try await phone.login(requestID, harness: self, tenant: tenant)
        let record = try requireValue(try await store.read { try await $0.authRequest(id: requestID) })
        guard case .code(_, let code, _) = try await domain.browserLogins.complete(record) else {
            throw TestSupportError("an approved login completes with a code")
        }
        return code
    }

    package func redeem(_ code: String, _ service: ServiceRecord, tenant: TenantRecord) async throws -> TokenResponse {
        try await domain.grants.redeemCode(code, redirectURI: "https://shop.example/cb", codeVerifier: nil, client: service, tenant: tenant)
    }
}

/// A device as the SDK would be one, signing with keys in memory: enough protocol to drive
/// the domain directly.
package struct Phone {
    package let key = SoftwareSigningKey()
    package let pin: String
    package let issuer = "https://id.example/t/demo"
    package var activationID: ActivationID = ""
    package var pinKey = Data()

    package init(pin: String = "246810") { self.pin = pin }

    package mutating func activate(code: String, harness: Harness, tenant: TenantRecord) async throws {
        let offer = try await harness.domain.activations.offer(code: code, tenant: tenant)
        pinKey = try PinProof.deriveKeyData(pin: pin, salt: try requireValue(Base64URL.decode(offer.pinSalt)))
        let now = Int(harness.clock.now().timeIntervalSince1970)
        let jwk = key.publicJWK
        let registration = ActivationRegistration(
            code: code, aud: issuer, deviceKey: jwk, biometricKey: nil,
            pinKey: Base64URL.encode(pinKey), totpSecret: nil, alias: "phone", iat: now, exp: now + 120)
        let signed = try CompactJWS.sign(
            payload: try WireCoding.encoder().encode(registration), header: JWSHeader(typ: "tessera-registration+jwt"), signer: key)
        let receipt = try await harness.domain.activations.complete(
            ActivationCompleteRequest(registration: signed, biometricRegistration: nil), tenant: tenant, logger: harness.logger)
        activationID = receipt.activationID
    }

    /// The caller a `Tessera-Device` token for `method path` proves.
    package func caller(_ method: String, _ path: String, harness: Harness, tenant: TenantRecord) async throws -> DeviceCaller {
        let now = Int(harness.clock.now().timeIntervalSince1970)
        let claims = DeviceRequestClaims(
            sub: activationID.rawValue, aud: issuer, htm: method, htu: path, iat: now, exp: now + 60, jti: Secrets.randomToken())
        let token = try CompactJWS.sign(
            payload: try WireCoding.encoder().encode(claims), header: JWSHeader(typ: "tessera-device+jwt", kid: activationID.rawValue), signer: key)
        return try await harness.domain.authenticateDevice(token: token, method: method, path: path, tenant: tenant)
    }

    /// Claims the request and proves device + PIN (or a wrong PIN).
    package func login(_ requestID: RequestID, pin: String? = nil, harness: Harness, tenant: TenantRecord) async throws -> Attempts.Finished {
        let caller = try await caller("POST", "/t/demo/device/authentications/\(requestID)/claim", harness: harness, tenant: tenant)
        let challenge = try await harness.domain.attempts.claim(
            requestID: requestID, selection: ClaimRequest(userID: nil), caller: caller, tenant: tenant, logger: harness.logger)
        return try await finish(challenge, pin: pin, harness: harness, tenant: tenant)
    }

    package func finish(_ challenge: AuthenticationChallenge, pin: String? = nil, harness: Harness, tenant: TenantRecord) async throws
        -> Attempts.Finished
    {
        var pinKeyData = pinKey
        if let pin, pin != self.pin { pinKeyData = try PinProof.deriveKeyData(pin: pin, salt: Data(repeating: 7, count: 16)) }
        let proof = PinProof.proof(keyData: pinKeyData, requestID: challenge.requestID.rawValue, challenge: challenge.challenge.rawValue)
        let now = Int(harness.clock.now().timeIntervalSince1970)
        let claims = AuthenticationProofClaims(
            rid: challenge.requestID.rawValue, chal: challenge.challenge.rawValue, aud: issuer, sub: activationID.rawValue, comb: [.device, .pin],
            attrs: challenge.requestedAttributes.map(\.name), pin: Base64URL.encode(proof), otp: nil, iat: now, exp: now + 120,
            jti: Secrets.randomToken())
        let signed = try CompactJWS.sign(
            payload: try WireCoding.encoder().encode(claims), header: JWSHeader(typ: "tessera-proof+jwt", kid: activationID.rawValue), signer: key)
        return try await harness.domain.attempts.finish(
            requestID: challenge.requestID, input: FinishRequest(proof: signed, biometricProof: nil), tenant: tenant,
            logger: harness.logger)
    }
}

/// Records every notice the domain delivers.
package final class RecordingNotifier: RequestNotifier {
    private let delivered = Mutex<[RequestNotice]>([])

    package func deliver(_ notice: RequestNotice, logger: Logger) async {
        delivered.withLock { $0.append(notice) }
    }

    package var keys: [String] { delivered.withLock { $0.flatMap(\.keys) } }
}

/// Enough JSON to read a view back.
package enum JSONValue: Decodable {
    case string(String)
    case other

    package init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            self = .string(text)
        } else {
            self = .other
        }
    }
}

package func requireValue<T>(_ value: T?) throws -> T {
    guard let value else { throw TestSupportError("a value was missing") }
    return value
}
