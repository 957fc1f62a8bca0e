import Foundation
import TesseraAdminAPI
import TesseraCore
import TesseraKit
import TesseraTesting
import Testing

/// OpenID CIBA, poll and ping, driven like a service's server would: client-authenticated
/// form posts to `bc-authorize` and the token endpoint; the user answers on the device.
@Suite("Push step-up with OpenID CIBA", .tags(.live), .timeLimit(.minutes(5)))
struct BackchannelTests {
    static let grantType = "urn:openid:params:grant-type:ciba"

    /// Runs `body` with a server whose backchannel interval is one second.
    func withCIBAServer<T>(_ body: (TestServer) async throws -> T) async throws -> T {
        try await withServer(backchannelInterval: 1, body)
    }

    func startRequest(
        _ scenario: Scenario, _ service: Scenario.Service, _ fields: [String: String]
    ) async throws -> TestHTTP.Response {
        var form = ["scope": "openid"]
        for (key, value) in fields { form[key] = value }
        return try await scenario.tokenRequest(form, service: service, endpoint: "bc-authorize")
    }

    func poll(_ scenario: Scenario, _ service: Scenario.Service, _ id: String) async throws -> TestHTTP.Response {
        try await scenario.tokenRequest(["grant_type": Self.grantType, "auth_req_id": id], service: service)
    }

    func error(_ response: TestHTTP.Response) throws -> String? { try response.json()["error"] as? String }

    /// The device's pending request with this id, once it shows up.
    func pending(_ id: String, on device: TestDevice) async throws -> PendingAuthentication {
        let requests = try await device.authenticator.pendingRequests()
        return try #require(requests.first { $0.requestID.rawValue == id }, "request \(id) is pending on the device")
    }

    @Test("poll mode: pending, slow_down, approval with the binding message, tokens once, ID token verified offline")
    func pollApproval() async throws {
        // The standard five-second interval: two polls in a row certainly come too fast.
        try await withServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(attributes: ["email"], backchannelMode: "poll", name: "Bank")
            try await scenario.createUser("rosa", attributes: ["email": "rosa@example.com"])
            let (device, _) = try await activateDevice(scenario, username: "rosa")

            let discovery = try await scenario.http.get("\(scenario.issuer)/.well-known/openid-configuration").json()
            #expect(discovery["backchannel_authentication_endpoint"] as? String == "\(scenario.issuer)/bc-authorize")
            #expect(discovery["backchannel_token_delivery_modes_supported"] as? [String] == ["poll", "ping"])
            #expect((discovery["grant_types_supported"] as? [String])?.contains(Self.grantType) == true)

            let started = try await startRequest(
                scenario, service, ["login_hint": "rosa", "binding_message": "Transfer 250 EUR, code W4K9", "requested_expiry": "120"])
            #expect(started.status == 200, "\(started.text)")
            let body = try started.json()
            let id = try #require(body["auth_req_id"] as? String)
            #expect(body["expires_in"] as? Int == 120)
            #expect(body["interval"] as? Int == 5)

            // Before the user answers: pending, and polling faster than the interval slows the client down.
            #expect(try error(try await poll(scenario, service, id)) == "authorization_pending")
            // The next poll follows at once; on a machine loaded enough that a whole
            // interval passed meanwhile, the one after that does.
            var tooFast = try await poll(scenario, service, id)
            for _ in 0..<4 where (try? error(tooFast)) == "authorization_pending" {
                tooFast = try await poll(scenario, service, id)
            }
            #expect(tooFast.status == 400)
            #expect(try error(tooFast) == "slow_down")

            let request = try await pending(id, on: device)
            #expect(request.service.name == "Bank")
            #expect(request.bindingMessage == "Transfer 250 EUR, code W4K9")
            #expect(request.username == "rosa")
            #expect(request.status == .pending)
            let information = try await device.authenticator.start(pending: request)
            #expect(information.bindingMessage == "Transfer 250 EUR, code W4K9")
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
            #expect(try await device.authenticator.status(of: request) == .authenticated)
            #expect(try await device.authenticator.pendingRequests().isEmpty)

            // Once approved, the tokens come at the next poll.
            let tokens = try await poll(scenario, service, id)
            #expect(tokens.status == 200, "\(tokens.text)")
            let json = try tokens.json()
            let claims = try await verifyIDToken(try #require(json["id_token"] as? String), scenario: scenario, clientID: service.clientID)
            #expect(claims["email"] as? String == "rosa@example.com")
            #expect(claims["acr"] as? String == "urn:tessera:acr:device+pin")
            #expect(claims["nonce"] == nil)
            let userID = try #require(claims["sub"] as? String)
            #expect(json["refresh_token"] is String)
            let userinfo = try await scenario.http.get(
                "\(scenario.issuer)/userinfo", headers: ["Authorization": "Bearer \(try #require(json["access_token"] as? String))"])
            #expect(try userinfo.json()["sub"] as? String == userID)

            // Tokens are issued once.
            let again = try await poll(scenario, service, id)
            #expect(try error(again) == "invalid_grant")

            // The ID token names the user again as a hint for the next step-up, for this client only;
            // an access token is no hint.
            let idToken = try #require(json["id_token"] as? String)
            let otherService = try await scenario.createService(backchannelMode: "poll")
            #expect(try error(try await startRequest(scenario, otherService, ["id_token_hint": idToken])) == "invalid_request")
            let accessHint = try await startRequest(scenario, service, ["id_token_hint": try #require(json["access_token"] as? String)])
            #expect(try error(accessHint) == "invalid_request")
            let hinted = try await startRequest(scenario, service, ["id_token_hint": idToken])
            #expect(hinted.status == 200, "\(hinted.text)")
            let next = try await pending(try #require(try hinted.json()["auth_req_id"] as? String), on: device)
            #expect(next.username == "rosa")
            device.remove()
        }
    }

    @Test("ping mode: the service's endpoint gets the ping with its bearer token, on approval and on denial")
    func pingMode() async throws {
        let receiver = try await CallbackReceiver.start()
        defer { Task { await receiver.stop() } }
        try await withCIBAServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(
                backchannelMode: "ping", notificationEndpoint: "\(receiver.baseURL)/ciba/notify")
            try await scenario.createUser("sam")
            let (device, _) = try await activateDevice(scenario, username: "sam")

            #expect(try error(try await startRequest(scenario, service, ["login_hint": "sam"])) == "invalid_request",
                "ping mode needs client_notification_token")
            let badToken = try await startRequest(scenario, service, ["login_hint": "sam", "client_notification_token": "a\r\nX-Injected: 1"])
            #expect(try error(badToken) == "invalid_request", "a token that cannot travel in a header")
            let started = try await startRequest(scenario, service, ["login_hint": "sam", "client_notification_token": "nt-approve-1"])
            let id = try #require(try started.json()["auth_req_id"] as? String)
            let information = try await device.authenticator.start(pending: try await pending(id, on: device))
            #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)

            let ping = try await receiver.next()
            #expect(ping.path == "/ciba/notify")
            #expect(ping.headers["authorization"] == "Bearer nt-approve-1")
            #expect(try ping.json()["auth_req_id"] as? String == id)
            let tokens = try await poll(scenario, service, id)
            #expect(tokens.status == 200, "\(tokens.text)")
            _ = try await verifyIDToken(try #require(try tokens.json()["id_token"] as? String), scenario: scenario, clientID: service.clientID)

            // A denial pings too; the token endpoint then says access_denied.
            let second = try await startRequest(scenario, service, ["login_hint": "sam", "client_notification_token": "nt-deny-2"])
            let deniedID = try #require(try second.json()["auth_req_id"] as? String)
            let request = try await pending(deniedID, on: device)
            try await device.authenticator.deny(pending: request)
            let denialPing = try await receiver.next()
            #expect(denialPing.headers["authorization"] == "Bearer nt-deny-2")
            #expect(try denialPing.json()["auth_req_id"] as? String == deniedID)
            let denied = try await poll(scenario, service, deniedID)
            #expect(try error(denied) == "access_denied")
            #expect(try await device.authenticator.status(of: request) == .canceled)
            // Nothing else was sent.
            #expect(await receiver.pending().isEmpty)
            device.remove()
        }
    }

    @Test("a wrong PIN that locks the device for good ends the request: ping, access_denied, failed")
    func permanentLock() async throws {
        let receiver = try await CallbackReceiver.start()
        defer { Task { await receiver.stop() } }
        try await withCIBAServer { server in
            let scenario = try await Scenario.make(on: server, lockout: .init(freeAttempts: 0, waits: [60], permanentAfter: 1))
            let service = try await scenario.createService(backchannelMode: "ping", notificationEndpoint: "\(receiver.baseURL)/n")
            try await scenario.createUser("yan")
            let (device, _) = try await activateDevice(scenario, username: "yan")
            let started = try await startRequest(scenario, service, ["login_hint": "yan", "client_notification_token": "nt-lock"])
            let id = try #require(try started.json()["auth_req_id"] as? String)
            let request = try await pending(id, on: device)
            let information = try await device.authenticator.start(pending: request)
            let result = try await signAndFinish(information, device: device, factors: [.device, .pin], pin: "0000")
            #expect(result.lockout?.0.isPermanent == true)
            let ping = try await receiver.next()
            #expect(try ping.json()["auth_req_id"] as? String == id)
            #expect(try error(try await poll(scenario, service, id)) == "access_denied")
            // The locked device still learns how the request ended.
            #expect(try await device.authenticator.status(of: request) == .failed)
            let activations = try await scenario.activations(username: "yan")
            #expect(activations.first?.permanentlyLocked == true)
            device.remove()
        }
    }

    @Test("a request nobody answers times out: expired_token for the service, timeout on the device")
    func timeout() async throws {
        try await withCIBAServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(backchannelMode: "poll")
            try await scenario.createUser("ted")
            let (device, _) = try await activateDevice(scenario, username: "ted")
            // Long enough for a loaded machine to see it pending first (6 s was not, with the whole suite on PostgreSQL).
            let started = try await startRequest(scenario, service, ["login_hint": "ted", "requested_expiry": "15"])
            let id = try #require(try started.json()["auth_req_id"] as? String)
            let request = try await pending(id, on: device)
            try await Task.sleep(for: .seconds(max(0, request.expiresAt.timeIntervalSinceNow) + 1.2))
            #expect(try error(try await poll(scenario, service, id)) == "expired_token")
            #expect(try await device.authenticator.status(of: request) == .timeout)
            #expect(try await device.authenticator.pendingRequests().isEmpty)
            // Claiming it now fails and changes nothing.
            await #expect(throws: TesseraKitError.self) { _ = try await device.authenticator.start(pending: request) }
            #expect(try error(try await poll(scenario, service, id)) == "expired_token")
            device.remove()
        }
    }

    @Test("two devices of one user: both see the request, one answers, the other sees it handled elsewhere")
    func twoDevices() async throws {
        try await withCIBAServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(backchannelMode: "poll")
            try await scenario.createUser("uma")
            try await scenario.createUser("vic")
            let (phone, _) = try await activateDevice(scenario, username: "uma")
            let (tablet, _) = try await activateDevice(scenario, username: "uma")
            let (stranger, _) = try await activateDevice(scenario, username: "vic")

            // The tablet listens (long poll) before the request exists.
            var updates = tablet.authenticator.pendingRequestUpdates(wait: 20).makeAsyncIterator()
            #expect(try await updates.next()?.isEmpty == true)

            let started = try await startRequest(scenario, service, ["login_hint": "uma", "binding_message": "Sign in to Bank"])
            let id = try #require(try started.json()["auth_req_id"] as? String)
            let arrived = try #require(try await updates.next())
            #expect(arrived.map(\.requestID.rawValue) == [id])
            #expect(arrived.first?.bindingMessage == "Sign in to Bank")
            #expect(try await stranger.authenticator.pendingRequests().isEmpty, "another user's device sees nothing")

            let onPhone = try await pending(id, on: phone)
            let information = try await phone.authenticator.start(pending: onPhone)
            // The tablet is told the phone took it up.
            let taken = try #require(try await updates.next())
            #expect(taken.first?.status == .ongoingOnAnotherDevice)
            let onTablet = try #require(taken.first)
            await #expect(throws: TesseraKitError.self) { _ = try await tablet.authenticator.start(pending: onTablet) }
            await #expect(throws: TesseraKitError.self) { try await tablet.authenticator.deny(pending: onTablet) }

            #expect(try await signAndFinish(information, device: phone, factors: [.device, .pin]).isUserLogin)
            let answered = try #require(try await updates.next())
            #expect(answered.isEmpty)
            #expect(try await tablet.authenticator.status(of: onTablet) == .ongoingOnAnotherDevice)
            #expect(try await phone.authenticator.status(of: onPhone) == .authenticated)

            // Answering twice is refused and changes nothing.
            await #expect(throws: TesseraKitError.self) {
                _ = try await signAndFinish(information, device: phone, factors: [.device, .pin])
            }
            #expect(try await poll(scenario, service, id).status == 200)
            for device in [phone, tablet, stranger] { device.remove() }
        }
    }

    @Test("acr_values narrow the factors the device must use")
    func acrValues() async throws {
        try await withCIBAServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(policy: "device+pin,device+biometric", backchannelMode: "poll")
            try await scenario.createUser("wes")
            let (device, _) = try await activateDevice(scenario, username: "wes", biometric: true)
            let started = try await startRequest(
                scenario, service, ["login_hint": "wes", "acr_values": "urn:tessera:acr:device+biometric"])
            let id = try #require(try started.json()["auth_req_id"] as? String)
            let information = try await device.authenticator.start(pending: try await pending(id, on: device))
            #expect(information.requestedAuthenticators == [[.device, .biometric]])
            #expect(try await signAndFinish(information, device: device, factors: [.device, .biometric]).isUserLogin)
            let tokens = try await poll(scenario, service, id).json()
            let claims = try await verifyIDToken(try #require(tokens["id_token"] as? String), scenario: scenario, clientID: service.clientID)
            #expect(claims["acr"] as? String == "urn:tessera:acr:biometric+device" || claims["acr"] as? String == "urn:tessera:acr:device+biometric")
            device.remove()
        }
    }

    @Test("an unknown, a disabled and a device-less user get the same answer; a user has at most five open requests per service")
    func enumerationAndBombing() async throws {
        try await withCIBAServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(backchannelMode: "poll")
            try await scenario.createUser("kai")
            try await scenario.createUser("nodevice")
            try await scenario.createUser("gone")
            let (device, _) = try await activateDevice(scenario, username: "kai")
            let (goneDevice, _) = try await activateDevice(scenario, username: "gone")
            let admin = ["Authorization": "Bearer \(scenario.adminToken)"]
            let users = try await scenario.http.get("\(scenario.baseURL)/admin/tenants/\(scenario.tenant)/users", headers: admin).json()
            let gone = try #require((users["users"] as? [[String: Any]])?.first { $0["username"] as? String == "gone" }?["id"] as? String)
            let disabled = try await scenario.http.send(
                "POST", "\(scenario.baseURL)/admin/tenants/\(scenario.tenant)/users/\(gone)/disable", headers: admin)
            #expect(disabled.status == 200, "\(disabled.text)")
            var answers: [String] = []
            for hint in ["nobody", "nodevice", "gone"] {
                let response = try await startRequest(scenario, service, ["login_hint": hint])
                answers.append("\(response.status) \(response.text)")
            }
            #expect(Set(answers).count == 1, "\(answers)")
            #expect(answers.first?.hasPrefix("400 ") == true && answers.first?.contains("unknown_user_id") == true)

            for _ in 0..<5 {
                #expect(try await startRequest(scenario, service, ["login_hint": "kai"]).status == 200)
            }
            let sixth = try await startRequest(scenario, service, ["login_hint": "kai"])
            #expect(sixth.status == 403, "\(sixth.text)")
            #expect(try error(sixth) == "access_denied")
            #expect(try await device.authenticator.pendingRequests().count == 5)
            // Another service still reaches the user.
            let other = try await scenario.createService(backchannelMode: "poll")
            #expect(try await startRequest(scenario, other, ["login_hint": "kai"]).status == 200)
            // Answering one makes room for the next.
            let first = try #require(try await device.authenticator.pendingRequests().first { $0.service.clientID.rawValue == service.clientID })
            try await device.authenticator.deny(try await device.authenticator.start(pending: first))
            #expect(try await startRequest(scenario, service, ["login_hint": "kai"]).status == 200)
            device.remove()
            goneDevice.remove()
        }
    }

    @Test("bad backchannel requests get the errors CIBA names and create nothing")
    func refusals() async throws {
        try await withCIBAServer { server in
            let scenario = try await Scenario.make(on: server)
            let service = try await scenario.createService(policy: "device+pin", backchannelMode: "poll")
            let other = try await scenario.createService(backchannelMode: "poll")
            let plain = try await scenario.createService()
            try await scenario.createUser("xia")
            try await scenario.createUser("nodevice")
            let (device, _) = try await activateDevice(scenario, username: "xia")

            let cases: [([String: String], String)] = [
                (["login_hint": "nobody"], "unknown_user_id"),
                (["login_hint": "nodevice"], "unknown_user_id"),
                ([:], "invalid_request"),
                (["login_hint": "xia", "id_token_hint": "x.y.z"], "invalid_request"),
                (["id_token_hint": "not-a-token"], "invalid_request"),
                (["login_hint_token": "abc"], "invalid_request"),
                (["login_hint": "xia", "scope": "profile"], "invalid_scope"),
                (["login_hint": "xia", "binding_message": String(repeating: "x", count: 200)], "invalid_binding_message"),
                (["login_hint": "xia", "binding_message": "line\nbreak"], "invalid_binding_message"),
                (["login_hint": "xia", "binding_message": "Pay 10 EUR\u{202E}0001"], "invalid_binding_message"),
                (["login_hint": "xia", "requested_expiry": "0"], "invalid_request"),
                (["login_hint": "xia", "requested_expiry": "soon"], "invalid_request"),
                (["login_hint": "xia", "acr_values": "urn:tessera:acr:device+biometric"], "invalid_request"),
                (["login_hint": "xia", "acr_values": "silver"], "invalid_request"),
            ]
            for (fields, expected) in cases {
                let response = try await startRequest(scenario, service, fields)
                #expect(response.status == 400, "\(fields)")
                #expect(try error(response) == expected, "\(fields): \(response.text)")
            }
            // A service not registered for CIBA, and a wrong secret.
            #expect(try error(try await startRequest(scenario, plain, ["login_hint": "xia"])) == "unauthorized_client")
            let wrong = Scenario.Service(clientID: service.clientID, clientSecret: "wrong", redirectURI: service.redirectURI)
            #expect(try await startRequest(scenario, wrong, ["login_hint": "xia"]).status == 401)
            #expect(try await device.authenticator.pendingRequests().isEmpty, "no refused request reached the device")

            // Token endpoint: unknown id, another client's id, a non-CIBA client, no id.
            let started = try await startRequest(scenario, service, ["login_hint": "xia"])
            let id = try #require(try started.json()["auth_req_id"] as? String)
            #expect(try error(try await poll(scenario, service, "unknown")) == "invalid_grant")
            #expect(try error(try await poll(scenario, other, id)) == "invalid_grant")
            #expect(try error(try await scenario.tokenRequest(["grant_type": Self.grantType, "auth_req_id": id], service: plain)) == "unauthorized_client")
            #expect(try error(try await scenario.tokenRequest(["grant_type": Self.grantType], service: service)) == "invalid_request")
            // None of that touched the request: still pending for its own client and device.
            #expect(try error(try await poll(scenario, service, id)) == "authorization_pending")
            #expect(try await device.authenticator.pendingRequests().map(\.requestID.rawValue) == [id])

            // Registration rules.
            let admin = ["Authorization": "Bearer \(server.adminToken)"]
            let url = "\(server.baseURL)/admin/tenants/\(scenario.tenant)/services"
            for body: [String: Any] in [
                ["name": "A", "redirect_uris": [], "backchannel_token_delivery_mode": "push"],
                ["name": "B", "redirect_uris": [], "backchannel_token_delivery_mode": "ping"],
                ["name": "C", "redirect_uris": [], "backchannel_token_delivery_mode": "ping",
                 "backchannel_client_notification_endpoint": "http://example.com/notify"],
                ["name": "D", "redirect_uris": [], "backchannel_token_delivery_mode": "poll", "public": true],
                ["name": "E", "redirect_uris": ["http://127.0.0.1:9/cb"], "backchannel_client_notification_endpoint": "https://x.example/n"],
            ] {
                #expect(try await scenario.http.postJSON(url, body, headers: admin).status == 400, "\(body)")
            }
            device.remove()
        }
    }
}
