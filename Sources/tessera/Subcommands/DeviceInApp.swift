import ArgumentParser
import Foundation
import TesseraCore
import TesseraKit

extension Device {
    struct InAppLogin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "in-app-login",
            abstract: "Log this device's user in to an app's backend: prints the authorization code for the backend.",
            discussion: """
                The backend makes the PKCE pair and keeps the verifier; give its S256 challenge with --code-challenge. \
                The backend redeems the printed `code` at the token endpoint with the verifier (and its client \
                authentication). Exit code 3 for a lockout.
                """)
        @OptionGroup var options: DeviceOptions
        @Option(help: "The backend's client id.") var clientId: String
        @Option(help: "A redirect URI registered for the backend (the code is bound to it).") var redirectUri: String
        // Base64url values may begin with "-": the next argument is the value, whatever it looks like.
        @Option(parsing: .unconditional, help: "The backend's PKCE S256 code challenge.") var codeChallenge: String
        @Option(help: "The PIN.") var pin: String?
        @Option(help: "The scope (must include openid).") var scope = "openid"
        @Option(parsing: .unconditional, help: "A state value to hand back with the code.") var state: String?
        @Option(parsing: .unconditional, help: "A nonce for the ID token.") var nonce: String?
        @Option(help: "The issuer, when this device holds activations of several.") var issuer: String?
        @Option(help: "The user to log in as, when the activation was merged with others.") var user: String?
        @Option(help: "The factor combination to use, e.g. device,pin.") var factors: String?
        @Option(help: "A TOTP code (default: computed from the secret this device enrolled).") var otp: String?

        func run() async throws {
            let authenticator = Authenticator(keyStore: try options.keyStore(), biometrics: options.biometrics())
            let request = InAppAuthenticationRequest(
                clientID: clientId, redirectURI: redirectUri, codeChallenge: codeChallenge, scope: scope, state: state, nonce: nonce,
                issuer: issuer, username: user)
            let outcome = try await Device.reporting(json: options.json) { () -> AuthenticationResult in
                var information = try await authenticator.fetchInAppAuthenticationInitializationData(request)
                try await Device.sign(
                    &information, factors: factors, pin: pin, otp: otp, authenticator: authenticator, securityKey: try options.securityKey())
                return try await authenticator.finish(information)
            }
            switch outcome {
            case .serviceLogin(let login):
                let code = try await Device.reporting(json: options.json) { try await authenticator.fetchAuthorizationCode(login) }
                let report = InAppReport(
                    result: "serviceLogin", code: code.code, state: code.state, issuer: code.issuer, redirectURI: code.redirectURI,
                    service: login.service.name, username: login.username)
                if options.json { return Output.encodable(report) }
                print("result: serviceLogin\ncode: \(code.code)")
                if let state = code.state { print("state: \(state)") }
                print("iss: \(code.issuer)\nredirect_uri: \(code.redirectURI)")
            case .lockout(let lockout, _):
                LoginReport(result: "lockout", isPermanent: lockout.isPermanent, lockedUntil: lockout.lockedUntil).show(json: options.json)
                throw ExitCode(3)
            default:
                throw CLIError("the server answered an in-app login with \(outcome)")
            }
        }
    }

    struct InAppReport: Encodable {
        let result: String
        let code: String
        let state: String?
        let issuer: String
        let redirectURI: String
        let service: String
        let username: String
        enum CodingKeys: String, CodingKey {
            case result, code, state, service, username
            case issuer = "iss"
            case redirectURI = "redirect_uri"
        }
    }
}

extension Device {
    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a user's login status and, when ok, a valid access token (refreshed if needed).",
            discussion: """
                Tokens are kept per issuer, service and user in the device's store. With --client-id, \
                --redirect-uri and --pin, a user without usable tokens is logged in first (an in-app login with \
                this device as a public client and its own PKCE pair). Statuses: ok, noTokenDataAvailable, \
                tokenDataIsOutdated, cannotAcquireAuthorizationCode, cannotAcquireAccessTokenForAuthorizationCode, \
                cannotAcquireTokenData. Exit code 0 for ok, 4 for any other status. Tokens are DPoP-bound \
                (RFC 9449) to a key in the store unless --no-dpop: such an access token is sent as \
                `Authorization: DPoP …` with a proof, and is refused as a bearer token.
                """)
        @OptionGroup var options: DeviceOptions
        @Option(help: "The user whose tokens to use.") var user: String
        @Option(help: "The app's (public) client id: to log in, or to choose among several services.") var clientId: String?
        @Option(help: "The app's registered redirect URI (to log in).") var redirectUri: String?
        @Option(help: "The PIN (to log in).") var pin: String?
        @Option(help: "The scope to log in with.") var scope = "openid offline_access"
        @Option(help: "The issuer, when tokens or activations of several exist.") var issuer: String?
        @Option(help: "The factor combination to log in with, e.g. device,pin.") var factors: String?
        @Option(help: "A TOTP code (default: computed from the secret this device enrolled).") var otp: String?
        @Flag(help: "Ask for bearer tokens instead of DPoP-bound ones (when logging in).") var noDpop = false

        func validate() throws {
            if pin != nil && (clientId == nil || redirectUri == nil) {
                throw ValidationError("logging in needs --client-id and --redirect-uri with --pin")
            }
        }

        func run() async throws {
            let keyStore = try options.keyStore()
            let tokens = TokenManager(keyStore: keyStore, dpop: !noDpop)
            var (status, accessToken) = await tokens.accessToken(clientID: clientId, username: user, issuer: issuer)
            if status == .noTokenDataAvailable || status == .tokenDataIsOutdated, let clientId, let redirectUri, pin != nil {
                let authenticator = Authenticator(keyStore: keyStore, biometrics: options.biometrics())
                let (factors, pin, otp) = (self.factors, self.pin, self.otp)
                let securityKey = try options.securityKey()
                status = await tokens.login(
                    authenticator: authenticator, clientID: clientId, redirectURI: redirectUri, scope: scope, issuer: issuer,
                    username: user
                ) { information in
                    try await Device.sign(&information, factors: factors, pin: pin, otp: otp, authenticator: authenticator, securityKey: securityKey)
                }
                if status == .ok { (status, accessToken) = await tokens.accessToken(clientID: clientId, username: user, issuer: issuer) }
            }
            let tokenType = accessToken == nil ? nil : (try? await tokens.users())?.first { $0.username == user && (clientId == nil || $0.clientID == clientId) }?.tokenType
            if options.json {
                Output.encodable(TokenReport(status: status.rawValue, accessToken: accessToken, tokenType: tokenType))
            } else {
                print("status: \(status.rawValue)")
                if let accessToken { print("access_token: \(accessToken)") }
                if let tokenType { print("token_type: \(tokenType)") }
            }
            if status != .ok { throw ExitCode(4) }
        }
    }

    struct TokenReport: Encodable {
        let status: String
        let accessToken: String?
        let tokenType: String?
        enum CodingKeys: String, CodingKey {
            case status
            case accessToken = "access_token"
            case tokenType = "token_type"
        }
    }
}
