// Written by scripts/sdk_samples.py from the samples of docs/SDK.md: do not edit.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TesseraCore
import TesseraKit
import TesseraKitCompat

extension DocSamples {
    #if canImport(LocalAuthentication)
    /// docs/SDK.md, sample 1.
    mutating func sample1() async throws {

        // Apple platforms: the Keychain and Secure Enclave, Face ID / Touch ID.
        // Elsewhere: FileKeyStore(directory:) and SoftwareBiometricGate(stateFile:).
        let store = KeychainKeyStore()
        let gate = PlatformBiometricGate()
        let personalizer = Personalizer(keyStore: store, biometrics: gate)
        let authenticator = Authenticator(keyStore: store, biometrics: gate)
        let tokens = TokenManager(keyStore: store)
    }
    #endif

    /// docs/SDK.md, sample 2.
    mutating func sample2() async throws {
        if let existing = try await personalizer.mergeCandidate(for: invitation) {
            var info = try await personalizer.startMerge(url: invitation, into: existing)
            try info.sign(factor: DeviceFactor())
            try info.sign(factor: PinFactor(await askForPIN()))
            if case .apiAccessMergeComplete(let userID) = try await personalizer.finish(info) { show("merged \(userID)") }
        } else {
            let result = try await personalizer.activate(url: invitation, pin: newPIN, alias: "iPhone", enrollBiometric: true)
            show(result.activation.factors)               // [.device, .pin, .biometric]
        }
        let everyone = try await personalizer.activations()   // the user list
        show(everyone.map(\.username))
    }

    /// docs/SDK.md, sample 3.
    mutating func sample3() async throws {
        var info = try await authenticator.start(url: scannedURL)   // username: for merged users
        show(info)   // service?.name, requestedAttributes, bindingMessage, origin (address, network, browser, time)
        info.confirmedAttributes.remove("email")                    // the user declines one attribute
        if !info.numberChoices.isEmpty { try info.pickNumber(await numberTheUserPicks(info.numberChoices)) }
        // or: try await authenticator.deny(info)
    }

    /// docs/SDK.md, sample 4.
    mutating func sample4() async throws {
        func approve(_ first: AuthenticationUserInformation) async throws {
            var info = first
            while true {
                guard let combination = info.requestedAuthenticators.first else { return }
                for type in combination {
                    switch type {
                    case .device: try info.sign(factor: DeviceFactor())
                    case .pin: try info.sign(factor: PinFactor(await askForPIN()))
                    case .biometric:
                        let factor = try await authenticator.biometricFactor(for: info, reason: "Sign in")
                        try info.sign(factor: factor)
                    case .otp:                                   // a device that holds its own TOTP secret
                        let factor = try await authenticator.currentOtpFactor(for: info)
                        try info.sign(factor: factor)
                    case .securitykey:                           // a security key or passkey the app can reach
                        try info.sign(factor: try await authenticator.securityKeyFactor(for: info, using: securityKey))
                    case .federation:                            // a sign-in at another provider: never asked of a device
                        break
                    }
                }
                switch try await authenticator.finish(info) {
                case .userLogin(let login):
                    show("signed in to \(login.service.name)")
                    return
                case .lockout(let lockout, let retry):
                    guard !lockout.isPermanent, let until = lockout.lockedUntil else { return show("locked; ask an administrator") }
                    try await Task.sleep(nanoseconds: UInt64(max(0, until.timeIntervalSinceNow) * 1_000_000_000))
                    info = retry
                default:
                    return
                }
            }
        }
    }

    /// docs/SDK.md, sample 5.
    mutating func sample5() async throws {
        var info = try await personalizer.startChangePin(activation: activation)
        try info.sign(factor: DeviceFactor())
        try info.sign(factor: PinFactor(oldPIN))
        switch try await personalizer.finish(info) {
        case .apiAccessChangePin(let process): try await personalizer.finishChangePin(process, newPin: newPIN)
        case .lockout(let lockout, _): show(lockout)
        default: break
        }

        // Biometrics again after `biometricsChanged`: a new key replaces the old one.
        var add = try await personalizer.startAddAuthenticationFactor(.biometric, activation: activation)
        try add.sign(factor: DeviceFactor())
        try add.sign(factor: PinFactor(await askForPIN()))
        if case .apiAccessAddFactor(let process) = try await personalizer.finish(add) {
            let added = try await personalizer.finishAddFactor(process)   // asks for biometrics
            show(added.activation.factors)
        }
    }

    /// docs/SDK.md, sample 6.
    mutating func sample6() async throws {
        let key = try SoftwareSecurityKey(file: storeDirectory.appendingPathComponent("security-key.json"))
        var add = try await personalizer.startAddAuthenticationFactor(.securitykey, activation: activation)
        try add.sign(factor: DeviceFactor())
        try add.sign(factor: PinFactor(await askForPIN()))
        if case .apiAccessAddFactor(let process) = try await personalizer.finish(add) {
            _ = try await personalizer.finishAddFactor(process, securityKey: key, name: "Blue key")
        }
        // Later, in a login whose service asks for device+securitykey:
        try info.sign(factor: DeviceFactor())
        try info.sign(factor: try await authenticator.securityKeyFactor(for: info, using: key))
    }

    /// docs/SDK.md, sample 7.
    mutating func sample7() async throws {
        var info = try await authenticator.fetchInAppAuthenticationInitializationData(
            InAppAuthenticationRequest(clientID: backendID, redirectURI: backendRedirect, codeChallenge: challenge, state: state))
        try info.sign(factor: DeviceFactor())
        try info.sign(factor: PinFactor(await askForPIN()))
        if case .serviceLogin(let login) = try await authenticator.finish(info) {
            let code = try await authenticator.fetchAuthorizationCode(login)   // once
            try await myServer.redeem(code.code)                               // the backend redeems it with its verifier
        }
    }

    /// docs/SDK.md, sample 8.
    mutating func sample8() async throws {
        let result = await tokens.loginResult(authenticator: authenticator, clientID: appID, redirectURI: appRedirect) { info in
            try info.sign(factor: DeviceFactor())
            try info.sign(factor: PinFactor(await askForPIN()))
        }
        if let lock = result.lockout { show(lock) }                // status is .cannotAcquireAuthorizationCode
        let (status, accessToken) = await tokens.accessToken(clientID: appID, username: "alice")
        show(status, accessToken ?? "none")
        try await tokens.logout(clientID: appID, username: "alice")   // revokes the refresh token, forgets the tokens
    }

    /// docs/SDK.md, sample 9.
    mutating func sample9() async throws {
        let (status, headers) = await tokens.authorizationHeaders(method: "GET", url: apiURL, clientID: appID, username: "alice")
        if status != .ok { show(status) }                          // log in again, or try later
        for (name, value) in headers ?? [:] { request.setValue(value, forHTTPHeaderField: name) }   // Authorization: DPoP …, DPoP: proof
        // a 401 with use_dpop_nonce: tokens.noteDPoPNonce(response's DPoP-Nonce, for: apiURL), then ask again
    }

    /// docs/SDK.md, sample 10.
    mutating func sample10() async throws {
        if let session = try await authenticator.singleSignOnSession(), session.expiresAt > Date() {
            let code = try await authenticator.fetchAuthorizationCode(
                singleSignOn: InAppAuthenticationRequest(clientID: pharmacyID, redirectURI: pharmacyRedirect,
                                                         codeChallenge: challengeFromPharmacyBackend))
            try await pharmacyBackend.redeem(code.code)   // .singleSignOnUnavailable means: log in with factors
        }
    }

    #if canImport(LocalAuthentication)
    /// docs/SDK.md, sample 11.
    mutating func sample11() async throws {
        let login = try WebLogin(issuer: "https://id.example.com/t/acme", clientID: appID, redirectURI: "com.example.app:/login")
        // Apple platforms: the system's web authentication sheet (cancel: TesseraKitError.cancelled)
        let callback = try await WebLoginSession(anchor: window).run(login, callbackURLScheme: "com.example.app")
        let (status, username) = await tokens.login(authorizationCode: try login.code(from: callback), webLogin: login)
    }
    #endif

    /// docs/SDK.md, sample 12.
    mutating func sample12() async throws {
        try await authenticator.registerPush(kind: "apns", token: apnsTokenHex)   // optional
        for try await requests in authenticator.pendingRequestUpdates() {
            guard let request = requests.first(where: { $0.status == .pending }) else { continue }
            // request.service.name, request.bindingMessage, request.username, request.expiresAt
            guard await userApproves(request) else { try await authenticator.deny(pending: request); continue }
            var info = try await authenticator.start(pending: request)   // others now see .ongoingOnAnotherDevice
            try info.sign(factor: DeviceFactor())
            try info.sign(factor: PinFactor(await askForPIN()))
            _ = try await authenticator.finish(info)                     // .userLogin or .lockout
            show(try await authenticator.status(of: request))            // .authenticated
        }
    }

    /// docs/SDK.md, sample 13.
    mutating func sample13() async throws {
        switch try await authenticator.authenticate(sessionID: authReqIDFromMyServer) {
        case .sign(var info):
            try info.sign(factor: DeviceFactor())
            try info.sign(factor: PinFactor(await askForPIN()))
            if case .userLogin(let result) = try await authenticator.finish(info) {
                try await myServer.confirm(result.identityToken)            // names the request in auth_req_id
            }
        case .ended(let status):
            show(status)   // .authenticated, .ongoingOnAnotherDevice, .canceled, .failed, .timeout
        }
    }

    /// docs/SDK.md, sample 14.
    mutating func sample14() async throws {
        if !activation.hasBackgroundKey {
            var info = try await personalizer.startBackgroundKey(activation: activation)
            try info.sign(factor: DeviceFactor())
            try info.sign(factor: PinFactor(await askForPIN()))
            if case .apiAccessBackgroundKey(let process) = try await personalizer.finish(info) {
                _ = try await personalizer.finishBackgroundKey(process)   // a new key; the old one stops working
            }
        }
    }

    /// docs/SDK.md, sample 15.
    mutating func sample15() async throws {

        TesseraKitShared.shared.configure(keyStore: store, biometrics: gate)
        TesseraKitShared.shared.authenticator.start(url: scannedURL) { result in
            switch result {
            case .success(let info): showApproval(info)           // sign it, then finish(_:completion:)
            case .failure(let error): show(error.localizedDescription)
            }
        }
        let stepUp = StepUp(authenticator: TesseraKitShared.shared.authenticator, delegate: approvalScreen)   // a StepUpDelegate
        stepUp.start(sessionID: sessionFromPush) { info in [DeviceFactor(), PinFactor(try await askForPIN())] }
    }
}
