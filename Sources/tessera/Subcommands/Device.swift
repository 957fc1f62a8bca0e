import ArgumentParser
import Foundation
import TesseraCore
import TesseraKit
import TesseraTexts

/// Options every `tessera device` command takes.
struct DeviceOptions: ParsableArguments {
    @Option(help: "The device's key store directory (or TESSERA_DEVICE_STORE; default ~/.tessera/device).") var store: String?
    @Flag(help: "Print JSON.") var json = false

    var directory: URL {
        if let store { return URL(fileURLWithPath: store) }
        if let environment = ProcessInfo.processInfo.environment["TESSERA_DEVICE_STORE"], !environment.isEmpty {
            return URL(fileURLWithPath: environment)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".tessera/device")
    }

    func keyStore() throws -> FileKeyStore { try FileKeyStore(directory: directory) }

    /// The terminal's security key: a software FIDO2 authenticator whose credentials are
    /// kept beside the keys (`security-key.json`), a stand-in for a hardware key as the
    /// biometric gate is for biometrics. It tests for presence by being run and does not
    /// verify the user (the PIN, when the combination has it, is checked by the server).
    func securityKey() throws -> SoftwareSecurityKey {
        try SoftwareSecurityKey(file: directory.appendingPathComponent("security-key.json"), verifiesUser: false)
    }

    /// The terminal's stand-in for platform biometrics, its state kept beside the keys.
    func biometrics() -> SoftwareBiometricGate {
        SoftwareBiometricGate(stateFile: directory.appendingPathComponent("biometric-enrolment-state"))
    }
}

struct Device: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A terminal authenticator: activate this machine, answer logins, and run account processes.",
        subcommands: [
            Activate.self, Login.self, Users.self, AddFactor.self, ChangePin.self, NewActivation.self, Delete.self, Devices.self,
            Unregister.self, RecoveryCodes.self, Recover.self, History.self, Pending.self, Approve.self, Deny.self, InAppLogin.self,
            Token.self,
        ])

    struct Activate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Activate this device with an invitation link.",
            discussion: """
                When this device already holds an activation for the link's issuer, the invitation is merged                 into it instead: --pin proves that activation's PIN, and `result: apiAccessMergeComplete` with                 the invited user's `idm_identifier` is printed. Use --new to create a second activation anyway.
                """)
        @OptionGroup var options: DeviceOptions
        @Argument(help: "The activation url from `tessera admin invite`.") var url: String
        @Option(help: "The PIN to enrol (checked by the server only).") var pin: String
        @Option(help: "A name for this device.") var alias: String?
        @Flag(help: "Also enrol a biometric key.") var biometric = false
        @Flag(help: "Also enrol a TOTP secret (prints its otpauth:// URI once).") var otp = false
        @Flag(help: "Create a new activation even when one for this issuer exists (no merge).") var new = false

        func run() async throws {
            guard let link = URL(string: url) else { throw ValidationError("not a URL: \(url)") }
            let personalizer = Personalizer(keyStore: try options.keyStore(), biometrics: options.biometrics())
            if !new, let existing = try await Device.reporting(json: options.json, { try await personalizer.mergeCandidate(for: link) }) {
                return try await merge(link, into: existing, personalizer: personalizer)
            }
            let result = try await Device.reporting(json: options.json) {
                try await personalizer.activate(url: link, pin: pin, alias: alias, enrollBiometric: biometric, enrollOTP: otp)
            }
            let activation = result.activation
            let report = ActivationReport(
                activationID: activation.id.rawValue, tenant: activation.tenant, issuer: activation.issuer,
                username: activation.username, alias: activation.alias, factors: activation.factors.map(\.rawValue),
                otpauthURI: result.otpProvisioningURI)
            if options.json { return Output.encodable(report) }
            print("activation_id: \(report.activationID)\ntenant: \(report.tenant)\nusername: \(report.username)")
            print("factors: \(report.factors.joined(separator: ","))")
            if let uri = report.otpauthURI { print("otpauth_uri: \(uri)") }
        }
    }

    struct ActivationReport: Encodable {
        let activationID: String
        let tenant: String
        let issuer: String
        let username: String
        let alias: String?
        let factors: [String]
        let otpauthURI: String?
        enum CodingKeys: String, CodingKey {
            case tenant, issuer, username, alias, factors
            case activationID = "activation_id"
            case otpauthURI = "otpauth_uri"
        }
    }

    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Answer a login: claim the request behind an authentication link and sign it.",
            discussion: """
                Prints the result case as `result`: userLogin, or lockout with isPermanent and lockedUntil \
                (also when a lock from earlier attempts is still running). Exit code 0 for userLogin, \
                3 for lockout, 1 for other errors.
                """)
        @OptionGroup var options: DeviceOptions
        @Argument(help: "The authentication link (the login page's QR code).") var url: String?
        @Option(help: "Scan the QR code in this image instead of giving the link (needs zbarimg, Debian's zbar-tools).")
        var qrImage: String?
        @Option(help: "The PIN.") var pin: String?
        @Option(help: "The factor combination to use, e.g. device,pin (default: the first one this device can supply).")
        var factors: String?
        @Option(help: "The user to log in as, when this device holds several activations for the issuer.") var user: String?
        @Option(help: "A TOTP code (default: computed from the secret this device enrolled).") var otp: String?
        @Option(help: "The number the login page shows, for a service with number matching (asked for on a terminal otherwise).")
        var number: String?
        @Flag(help: "Decline the request instead of approving it.") var deny = false

        func validate() throws {
            guard (url == nil) != (qrImage == nil) else { throw ValidationError("give the link or --qr-image, one of them") }
        }

        func run() async throws {
            let text = try url ?? QRScanner.scan(imageAt: qrImage ?? "")
            guard let link = URL(string: text) else { throw ValidationError("not a URL: \(text)") }
            let authenticator = Authenticator(keyStore: try options.keyStore(), biometrics: options.biometrics())
            var information = try await Device.reporting(json: options.json) {
                try await authenticator.start(url: link, username: user)
            }
            if !options.json { Device.showOrigin(information) }
            if !deny { try Device.pickNumber(&information, given: number) }
            try await Device.answer(
                information, deny: deny, factors: factors, pin: pin, otp: otp, authenticator: authenticator,
                securityKey: try options.securityKey(), json: options.json)
        }
    }

    /// Where the browser that started the login is: the user compares it with their own.
    static func showOrigin(_ information: AuthenticationUserInformation) {
        guard let origin = information.origin else { return }
        let started = origin.startedAt.formatted(.iso8601)
        print("browser: \(origin.address) (network \(origin.network)), started \(started)")
        if let agent = origin.userAgent { print("browser_user_agent: \(agent)") }
    }

    /// Number matching: the number given, or asked for on a terminal among the choices.
    static func pickNumber(_ information: inout AuthenticationUserInformation, given: String?) throws {
        guard !information.numberChoices.isEmpty else { return }
        let choices = information.numberChoices.joined(separator: ", ")
        if let given { return try information.pickNumber(given) }
        guard isatty(STDIN_FILENO) == 1 else {
            throw CLIError("this login asks for the number its page shows (one of \(choices)): pass --number")
        }
        let texts = Catalog.shared.texts(language: Catalog.terminalLanguage(ProcessInfo.processInfo.environment))
        if let origin = information.origin {
            let when = texts.time(origin.startedAt)
            FileHandle.standardError.write(Data((texts("device.origin", ["address": origin.address, "time": when]) + "\n").utf8))
        }
        FileHandle.standardError.write(Data((texts("device.pick_number", ["choices": choices]) + " ").utf8))
        try information.pickNumber((readLine() ?? "").trimmingCharacters(in: .whitespaces))
    }

    /// Approves (signs and finishes) or denies a claimed login and prints the result;
    /// a lockout exits with code 3.
    static func answer(
        _ claimed: AuthenticationUserInformation, deny: Bool, factors: String?, pin: String?, otp: String?,
        authenticator: Authenticator, securityKey: (any SecurityKeyAuthenticator)? = nil, json: Bool
    ) async throws {
        var information = claimed
        if deny {
            try await Device.reporting(json: json) { try await authenticator.deny(information) }
            if json { return Output.encodable(LoginReport(result: "denied")) }
            return print("result: denied")
        }
        let result = try await Device.reporting(json: json) { () -> AuthenticationResult in
            try await Device.sign(
                &information, factors: factors, pin: pin, otp: otp, authenticator: authenticator, securityKey: securityKey)
            return try await authenticator.finish(information)
        }
        let report: LoginReport
        switch result {
        case .userLogin(let login):
            report = LoginReport(
                result: "userLogin", service: login.service.name, username: login.username, factors: login.factors.map(\.rawValue),
                role: login.role, subject: login.subject, identityToken: login.identityToken)
        case .lockout(let lockout, _):
            report = LoginReport(result: "lockout", isPermanent: lockout.isPermanent, lockedUntil: lockout.lockedUntil)
        default:
            throw CLIError("the server answered a login with \(result)")
        }
        report.show(json: json)
        if report.result == "lockout" { throw ExitCode(3) }
    }

    /// Signs with the combination named by `factors` (default: the first requested one
    /// this device can supply with what was given).
    static func sign(
        _ information: inout AuthenticationUserInformation, factors: String?, pin: String?, otp: String?, authenticator: Authenticator,
        securityKey: (any SecurityKeyAuthenticator)? = nil
    ) async throws {
        let combination: [FactorType]
        if let factors {
            combination = try factors.split(separator: ",").map { name in
                guard let factor = FactorType(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                    throw ValidationError("unknown factor '\(name)' (device, pin, biometric, otp, securitykey)")
                }
                return factor
            }
        } else {
            let enrolled = Set(information.activation.factors)
            let usable = information.requestedAuthenticators.first {
                Set($0).isSubset(of: enrolled) && (pin != nil || !$0.contains(.pin))
            }
            guard let usable else {
                throw CLIError(
                    "no requested combination fits: \(information.requestedAuthenticators.map { $0.map(\.rawValue).joined(separator: "+") })")
            }
            combination = usable
        }
        for factor in combination {
            switch factor {
            case .device: try information.sign(factor: DeviceFactor())
            case .pin:
                guard let pin else { throw ValidationError("the combination needs --pin") }
                try information.sign(factor: PinFactor(pin))
            case .biometric:
                try information.sign(factor: try await authenticator.biometricFactor(for: information, reason: "Approve"))
            case .otp:
                if let otp {
                    try information.sign(factor: OtpFactor(code: otp))
                } else {
                    try information.sign(factor: try await authenticator.currentOtpFactor(for: information))
                }
            case .securitykey:
                guard let securityKey else { throw CLIError("this command has no security key to ask") }
                try information.sign(factor: try await authenticator.securityKeyFactor(for: information, using: securityKey))
            case .federation:
                throw CLIError("a sign-in at another provider happens in a browser, not on a device")
            }
        }
    }

    struct LoginReport: Encodable {
        var result: String
        var service: String? = nil
        var username: String? = nil
        var factors: [String]? = nil
        var isPermanent: Bool? = nil
        var lockedUntil: Date? = nil
        var role: String? = nil
        var subject: String? = nil
        var identityToken: String? = nil

        func show(json: Bool) {
            if json { return Output.encodable(self) }
            print("result: \(result)")
            if let service { print("service: \(service)\nusername: \(username ?? "")") }
            if let factors { print("factors: \(factors.joined(separator: ","))") }
            if let role { print("role: \(role)") }
            if let subject { print("subject: \(subject)") }
            if let identityToken { print("identityToken: \(identityToken)") }
            if let isPermanent { print("isPermanent: \(isPermanent)") }
            if let lockedUntil { print("lockedUntil: \(ISO8601DateFormatter().string(from: lockedUntil))") }
        }
    }

    struct Users: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the activations on this device, one line per user they sign in as.")
        @OptionGroup var options: DeviceOptions

        func run() async throws {
            let activations = try await Personalizer(keyStore: try options.keyStore()).activations()
            // One row per user: an activation merged with invitations signs in as each of them.
            let rows = activations.flatMap { activation in
                activation.usernames.map {
                    UserRow(
                        tenant: activation.tenant, user: $0, activationID: activation.id.rawValue, issuer: activation.issuer,
                        alias: activation.alias, factors: activation.factors.map(\.rawValue))
                }
            }
            if options.json { return Output.encodable(rows) }
            for row in rows { print("\(row.tenant)\t\(row.user)\t\(row.activationID)") }
        }
    }

    struct UserRow: Encodable {
        let tenant: String
        let user: String
        let activationID: String
        let issuer: String
        let alias: String?
        let factors: [String]
        enum CodingKeys: String, CodingKey {
            case tenant, user, issuer, alias, factors
            case activationID = "activation_id"
        }
    }

    /// Runs an SDK call and turns its errors into the command's output: a pending lockout
    /// prints `result: lockout` like an attempt lockout, with exit code 3.
    static func reporting<T>(json: Bool, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch TesseraKitError.pendingLockout(let lockout) {
            LoginReport(result: "lockout", isPermanent: lockout.isPermanent, lockedUntil: lockout.lockedUntil).show(json: json)
            FileHandle.standardError.write(Data("error: the activation is locked (pending lockout)\n".utf8))
            throw ExitCode(3)
        } catch let error as TesseraKitError {
            throw CLIError(error.description)
        }
    }
}

/// Reads a QR code from an image file with `zbarimg`, as a phone's camera would read
/// the login page.
enum QRScanner {
    static func scan(imageAt path: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError("no image at \(path)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw CLIError("cannot run zbarimg (install Debian's zbar-tools)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, let first = text.split(separator: "\n").first else {
            throw CLIError("no QR code found in \(path) (is zbarimg installed?)")
        }
        return String(first)
    }
}
