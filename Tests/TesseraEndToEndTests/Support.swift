import Foundation
import TesseraCore
import TesseraCrypto
import TesseraKit
import TesseraServer
import TesseraTesting
import TesseraTestSupport
import Testing

/// Activates a fresh test device for `username`.
func activateDevice(
    _ scenario: Scenario, username: String, pin: String = "2468", biometric: Bool = false, otp: Bool = false,
    device: TestDevice? = nil
) async throws -> (TestDevice, Personalizer.ActivationResult) {
    let device = try device ?? TestDevice()
    let url = try await scenario.invite(username)
    let result = try await device.personalizer.activate(url: url, pin: pin, alias: "test", enrollBiometric: biometric, enrollOTP: otp)
    return (device, result)
}

/// Makes the account's ten recovery codes with the device's first activation (device and PIN).
func makeRecoveryCodes(_ device: TestDevice, pin: String = "2468") async throws -> [String] {
    let activation = try #require(try await device.personalizer.activations().first)
    var information = try await device.personalizer.startRecoveryCodes(activation: activation)
    try information.sign(factor: DeviceFactor())
    try information.sign(factor: PinFactor(pin))
    guard case .apiAccessRecoveryCodes(let process) = try await device.personalizer.finish(information) else {
        throw TestSupportError("the process did not approve recovery codes")
    }
    return try await device.personalizer.finishRecoveryCodes(process)
}

/// A device's security key is not a factor these helpers sign with (passkeys sign in on the login page).
struct UnsupportedFactor: Error {}

/// Signs a claimed request with the given factors and finishes it.
func signAndFinish(
    _ information: AuthenticationUserInformation, device: TestDevice, factors: [FactorType], pin: String = "2468",
    authenticator: Authenticator? = nil
) async throws -> AuthenticationResult {
    var information = information
    for factor in factors {
        switch factor {
        case .device: try information.sign(factor: DeviceFactor())
        case .pin: try information.sign(factor: PinFactor(pin))
        case .biometric: try information.sign(factor: try await device.authenticator.biometricFactor(for: information, reason: "test"))
        case .otp: try information.sign(factor: try await device.authenticator.currentOtpFactor(for: information))
        case .securitykey, .federation: throw UnsupportedFactor()
        }
    }
    return try await (authenticator ?? device.authenticator).finish(information)
}

/// Checks an ID token offline: signature against the tenant's JWKS, then the claims.
func verifyIDToken(_ token: String, scenario: Scenario, clientID: String) async throws -> [String: Any] {
    let jws = try CompactJWS.parse(token)
    let jwks = try await scenario.http.get("\(scenario.issuer)/jwks").json()
    let keys = try JSONDecoder().decode(
        [PublicJWK].self, from: try JSONSerialization.data(withJSONObject: try #require(jwks["keys"])))
    let key = try #require(keys.first { $0.kid == jws.header.kid })
    let payload = try jws.verifiedPayload(with: try key.publicKey())
    let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
    #expect(claims["iss"] as? String == scenario.issuer)
    #expect(claims["aud"] as? String == clientID)
    let expiry = try #require((claims["exp"] as? NSNumber)?.doubleValue)
    #expect(expiry > Date().timeIntervalSince1970)
    return claims
}

extension AuthenticationResult {
    var isUserLogin: Bool {
        if case .userLogin = self { return true }
        return false
    }

    var lockout: (LockoutInformation, AuthenticationUserInformation)? {
        if case .lockout(let information, let retry) = self { return (information, retry) }
        return nil
    }
}

/// Runs `body` with a fresh server that is stopped afterwards.
func withServer<T>(
    requestLifetime: TimeInterval = 300, backchannelInterval: Int = 5,
    configure: @Sendable (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestServer) async throws -> T
) async throws -> T {
    let server = try await TestServer.start(requestLifetime: requestLifetime, backchannelInterval: backchannelInterval, configure: configure)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// Logs in with device + PIN up to the redirect with a code.
func approvedLogin(
    _ scenario: Scenario, _ service: Scenario.Service, device: TestDevice, pkce: Bool = true, extra: [String: String] = [:]
) async throws -> (Scenario.BrowserLogin, String) {
    let login = try await scenario.openLogin(service, pkce: pkce, extra: extra)
    let information = try await device.authenticator.start(url: login.authenticationURL)
    #expect(try await signAndFinish(information, device: device, factors: [.device, .pin]).isUserLogin)
    return (login, try #require(try await scenario.complete(login)["code"]))
}

/// `tessera serve` in a child process on `directory` (and the test database, if any) with
/// the admin token `token`, and `arguments` and `environment` besides; returns once it is
/// ready. Its log options and the file of its standard error are `logging` (by default
/// the suite's: `SuiteLogs`).
func serve(
    directory: URL, port: Int, database: String?, token: String, arguments: [String] = [], environment: [String: String?] = [:],
    logging: (arguments: [String], errorFile: String?) = SuiteLogs.childLogging()
) async throws -> ChildProcess {
    let process = try await ChildProcess.start(
        tesseraBinary,
        ["serve", "--port", "\(port)", "--data-dir", directory.path] + logging.arguments + arguments
            + (database.map { ["--database", $0, "--database-connections", "8"] } ?? []),
        environment: environment.merging(["TESSERA_ADMIN_TOKEN": token]) { $1 }, errorFile: logging.errorFile)
    for _ in 0..<150 {
        if (try? await TestHTTP().get("http://127.0.0.1:\(port)/ready"))?.status == 200 {
            // Ready, and ours: a process that could not bind the port has exited.
            try await Task.sleep(for: .milliseconds(50))
            guard process.isRunning else { throw TestSupportError("tessera serve exited: is port \(port) taken?") }
            return process
        }
        try await Task.sleep(for: .milliseconds(100))
    }
    process.terminate()
    throw TestSupportError("tessera serve did not get ready")
}

/// Two certificate and key pairs for a TLS reload: the server's files (`certificate`,
/// `key`, the first pair, a copy of its certificate kept as `first`) and the next pair's,
/// which `swapCertificate` and `swapKey` rename over them (as an operator should).
struct TLSSwap {
    let directory: URL
    var certificate: URL { directory.appendingPathComponent("cert.pem") }
    var key: URL { directory.appendingPathComponent("key.pem") }
    var first: URL { directory.appendingPathComponent("first.pem") }
    var next: URL { directory.appendingPathComponent("next") }

    static func make() async throws -> TLSSwap {
        let swap = TLSSwap(directory: FileManager.default.temporaryDirectory.appendingPathComponent("tls-swap-\(UUID().uuidString)"))
        try FileManager.default.createDirectory(at: swap.next, withIntermediateDirectories: true)
        for place in [swap.directory, swap.next] {
            let made = try await Python.run("tls_check.py", ["make", place.path])
            guard made.status == 0 else { throw TestSupportError("tls_check.py make: \(made.errors)") }
        }
        try FileManager.default.copyItem(at: swap.certificate, to: swap.first)
        return swap
    }

    func swapCertificate() -> Bool { rename(next.appendingPathComponent("cert.pem").path, certificate.path) == 0 }
    func swapKey() -> Bool { rename(next.appendingPathComponent("key.pem").path, key.path) == 0 }

    /// Whether the server on `port` shows the certificate in `pem`, asking for up to `seconds`.
    func serves(_ pem: URL, port: Int, within seconds: Int = 0) async throws -> Bool {
        try await Python.run("tls_check.py", ["serves", "127.0.0.1", "\(port)", pem.path, "\(seconds)"]).status == 0
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}


/// Where the browser tests' screenshots go for review: `TESSERA_SCREENSHOTS`, or
/// `test-results/screenshots` in the package (CI keeps it).
func screenshotDirectory() -> URL {
    let directory =
        ProcessInfo.processInfo.environment["TESSERA_SCREENSHOTS"].map { URL(fileURLWithPath: $0) }
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("test-results/screenshots")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}
