import ArgumentParser
import Foundation
import TesseraCore
import TesseraKit

/// How a process command proves the activation's factors (as `tessera device login` does).
struct ProofOptions: ParsableArguments {
    @Option(help: "The activation's PIN.") var pin: String?
    @Option(help: "The factor combination to use, e.g. device,pin (default: the first one this device can supply).")
    var factors: String?
    @Option(help: "A TOTP code (default: computed from the secret this device enrolled).") var otp: String?
    @Option(help: "The user whose activation acts, when this device holds several.") var user: String?
}

/// What every process command prints: the result case and its particulars.
struct ProcessReport: Encodable {
    var result: String
    var activationID: String? = nil
    var factors: [String]? = nil
    var otpauthURI: String? = nil
    var url: String? = nil
    var expiresAt: Date? = nil
    var removed: String? = nil
    var idmIdentifier: String? = nil
    var devices: [DeviceRow]? = nil
    var recoveryCodes: [String]? = nil

    enum CodingKeys: String, CodingKey {
        case result, factors, url, removed, devices
        case activationID = "activation_id"
        case otpauthURI = "otpauth_uri"
        case expiresAt = "expires_at"
        case idmIdentifier = "idm_identifier"
        case recoveryCodes = "recovery_codes"
    }

    struct DeviceRow: Encodable {
        let activationID: String
        let alias: String?
        let factors: [String]
        let createdAt: Date
        let lastUsedAt: Date?
        let current: Bool
        enum CodingKeys: String, CodingKey {
            case alias, factors, current
            case activationID = "activation_id"
            case createdAt = "created_at"
            case lastUsedAt = "last_used_at"
        }
    }

    func show(json: Bool) {
        if json { return Output.encodable(self) }
        print("result: \(result)")
        if let activationID { print("activation_id: \(activationID)") }
        if let idmIdentifier { print("idm_identifier: \(idmIdentifier)") }
        if let factors { print("factors: \(factors.joined(separator: ","))") }
        if let otpauthURI { print("otpauth_uri: \(otpauthURI)") }
        if let url { print("url: \(url)") }
        if let expiresAt { print("expires_at: \(ISO8601DateFormatter().string(from: expiresAt))") }
        if let removed { print("removed: \(removed)") }
        for code in recoveryCodes ?? [] { print("recovery_code: \(code)") }
        for device in devices ?? [] {
            let used = device.lastUsedAt.map { ISO8601DateFormatter().string(from: $0) } ?? "never"
            print(
                "\(device.current ? "*" : " ") \(device.activationID)\t\(device.alias ?? "-")\t\(device.factors.joined(separator: ","))\t"
                    + "created \(ISO8601DateFormatter().string(from: device.createdAt))\tlast used \(used)")
        }
    }
}

extension Device {
    /// Starts a process, proves the factors and finishes it. A lockout prints like a
    /// login's (`result: lockout`, exit code 3); otherwise returns the result case.
    static func runProcess(
        options: DeviceOptions, proof: ProofOptions,
        start: @escaping (Personalizer, Activation) async throws -> AuthenticationUserInformation
    ) async throws -> (Personalizer, AuthenticationResult) {
        let keyStore = try options.keyStore()
        let personalizer = Personalizer(keyStore: keyStore, biometrics: options.biometrics())
        let authenticator = Authenticator(keyStore: keyStore, biometrics: options.biometrics())
        let result = try await reporting(json: options.json) { () -> AuthenticationResult in
            let activation = try await chooseActivation(personalizer, user: proof.user)
            var information = try await start(personalizer, activation)
            try await sign(
                &information, factors: proof.factors, pin: proof.pin, otp: proof.otp, authenticator: authenticator,
                securityKey: try options.securityKey())
            return try await personalizer.finish(information)
        }
        if case .lockout(let lockout, _) = result {
            LoginReport(result: "lockout", isPermanent: lockout.isPermanent, lockedUntil: lockout.lockedUntil).show(json: options.json)
            throw ExitCode(3)
        }
        return (personalizer, result)
    }

    static func chooseActivation(_ personalizer: Personalizer, user: String?) async throws -> Activation {
        let all = try await personalizer.activations()
        let matching = all.filter { user == nil || $0.usernames.contains(user ?? "") }
        guard let first = matching.first else { throw CLIError("no activation on this device\(user.map { " for \($0)" } ?? "")") }
        guard matching.count == 1 else {
            throw CLIError("several activations on this device (\(matching.map(\.username).joined(separator: ", "))); choose one with --user")
        }
        return first
    }

    static func unexpected(_ result: AuthenticationResult) -> CLIError { CLIError("unexpected result: \(result)") }

    struct AddFactor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-factor",
            abstract: "Enrol biometrics, a TOTP secret or a security key (also: enrol biometrics again after they changed).",
            discussion: """
                Prints `result: apiAccessAddFactor` and the activation's factors; for otp the otpauth:// URI, once. \
                A security key is registered on the terminal's software FIDO2 authenticator (security-key.json in the \
                store) and becomes this activation's securitykey factor (device+securitykey).
                """)
        @OptionGroup var options: DeviceOptions
        @OptionGroup var proof: ProofOptions
        @Argument(help: "biometric, otp or securitykey") var factor: String
        @Option(help: "With securitykey: the name the key is listed by.") var name: String?

        func validate() throws {
            guard ["biometric", "otp", "securitykey"].contains(factor) else { throw ValidationError("the factor is biometric, otp or securitykey") }
        }

        func run() async throws {
            let type = FactorType(rawValue: factor) ?? .otp
            let (personalizer, result) = try await Device.runProcess(options: options, proof: proof) {
                try await $0.startAddAuthenticationFactor(type, activation: $1)
            }
            guard case .apiAccessAddFactor(let process) = result else { throw Device.unexpected(result) }
            let securityKey = type == .securitykey ? try options.securityKey() : nil
            let added = try await Device.reporting(json: options.json) {
                try await personalizer.finishAddFactor(process, securityKey: securityKey, name: name)
            }
            ProcessReport(
                result: "apiAccessAddFactor", activationID: added.activation.id.rawValue,
                factors: added.activation.factors.map(\.rawValue), otpauthURI: added.otpProvisioningURI
            ).show(json: options.json)
        }
    }

    struct ChangePin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "change-pin", abstract: "Change the PIN: the old one stops working at once.",
            discussion: "Prints `result: apiAccessChangePin`.")
        @OptionGroup var options: DeviceOptions
        @OptionGroup var proof: ProofOptions
        @Option(help: "The new PIN.") var newPin: String

        func run() async throws {
            let (personalizer, result) = try await Device.runProcess(options: options, proof: proof) {
                try await $0.startChangePin(activation: $1)
            }
            guard case .apiAccessChangePin(let process) = result else { throw Device.unexpected(result) }
            try await Device.reporting(json: options.json) { try await personalizer.finishChangePin(process, newPin: newPin) }
            ProcessReport(result: "apiAccessChangePin", activationID: process.activation.id.rawValue).show(json: options.json)
        }
    }

    struct NewActivation: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new-activation", abstract: "Make activation data for a new device (moving to another device).",
            discussion: """
                Prints `result: apiAccessRequestNewActivationData` and the new device's `url`. The new device runs \
                `tessera device activate URL --pin NEW_PIN`. This activation keeps working unless --retire is given, \
                in which case it is removed when the new device has activated.
                """)
        @OptionGroup var options: DeviceOptions
        @OptionGroup var proof: ProofOptions
        @Option(help: "The PIN the new device will have (it must present it when activating).") var newPin: String
        @Option(help: "A name for the new device.") var alias: String?
        @Flag(help: "Remove this activation once the new device has activated.") var retire = false

        func run() async throws {
            let (personalizer, result) = try await Device.runProcess(options: options, proof: proof) {
                try await $0.startRequestNewActivationData(activation: $1)
            }
            guard case .apiAccessRequestNewActivationData(let process) = result else { throw Device.unexpected(result) }
            let data = try await Device.reporting(json: options.json) {
                try await personalizer.finishRequestNewActivationData(process, newPin: newPin, alias: alias, retire: retire)
            }
            ProcessReport(
                result: "apiAccessRequestNewActivationData", activationID: process.activation.id.rawValue,
                url: data.url.absoluteString, expiresAt: data.expiresAt
            ).show(json: options.json)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete this activation on the server and its keys on this device.",
            discussion: "Prints `result: apiAccessDelete` and the removed activation.")
        @OptionGroup var options: DeviceOptions
        @OptionGroup var proof: ProofOptions

        func run() async throws {
            let (personalizer, result) = try await Device.runProcess(options: options, proof: proof) {
                try await $0.startDeletion(activation: $1)
            }
            guard case .apiAccessDelete(let process) = result else { throw Device.unexpected(result) }
            try await Device.reporting(json: options.json) { try await personalizer.finishDeletion(process) }
            ProcessReport(result: "apiAccessDelete", removed: process.activation.id.rawValue).show(json: options.json)
        }
    }

    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the activations of my account (* marks this device).",
            discussion: "Prints `result: apiAccessListDevices` and one line per activation.")
        @OptionGroup var options: DeviceOptions
        @OptionGroup var proof: ProofOptions

        func run() async throws {
            let (personalizer, result) = try await Device.runProcess(options: options, proof: proof) {
                try await $0.startListDevices(activation: $1)
            }
            guard case .apiAccessListDevices(let process) = result else { throw Device.unexpected(result) }
            let devices = try await Device.reporting(json: options.json) { try await personalizer.finishListDevices(process) }
            ProcessReport(
                result: "apiAccessListDevices",
                devices: devices.map {
                    ProcessReport.DeviceRow(
                        activationID: $0.activationID.rawValue, alias: $0.alias, factors: $0.factors.map(\.rawValue),
                        createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt, current: $0.current)
                }
            ).show(json: options.json)
        }
    }

    struct RecoveryCodes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recovery-codes",
            abstract: "Make ten new recovery codes for my account (the old ones stop working); where the tenant offers them.",
            discussion: "Prints `result: apiAccessRecoveryCodes` and the codes, this once: keep them somewhere safe, away from this device.")
        @OptionGroup var options: DeviceOptions
        @OptionGroup var proof: ProofOptions

        func run() async throws {
            let (personalizer, result) = try await Device.runProcess(options: options, proof: proof) {
                try await $0.startRecoveryCodes(activation: $1)
            }
            guard case .apiAccessRecoveryCodes(let process) = result else { throw Device.unexpected(result) }
            let codes = try await Device.reporting(json: options.json) { try await personalizer.finishRecoveryCodes(process) }
            ProcessReport(result: "apiAccessRecoveryCodes", recoveryCodes: codes).show(json: options.json)
        }
    }

    struct Recover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "On a new device, after losing every one: start a recovery with a recovery code.",
            discussion: """
                Prints the recovery's id and status: `emailed` (the activation link went to the user's e-mail: \
                activate with it) or `awaiting_approval` (tell an operator the id; with --wait this asks until it \
                is approved, then prints the activation link's url).
                """)
        @OptionGroup var options: DeviceOptions
        @Option(help: "The tenant's issuer URL.") var issuer: String
        @Option(help: "Username.") var username: String
        @Option(help: "One of the user's recovery codes.") var code: String
        @Option(help: "Seconds to wait for an operator's approval (0: do not wait).") var wait = 0

        struct Report: Encodable {
            let recoveryID: String
            let status: String
            let url: String?
            let expiresAt: Date

            enum CodingKeys: String, CodingKey {
                case status, url
                case recoveryID = "recovery_id"
                case expiresAt = "expires_at"
            }
        }

        func run() async throws {
            guard let base = URL(string: issuer) else { throw ValidationError("--issuer is a URL") }
            let personalizer = Personalizer(keyStore: try options.keyStore())
            var status = try await Device.reporting(json: options.json) {
                try await personalizer.recover(issuer: base, username: username, code: code)
            }
            let handle = status.handle
            let deadline = Date().addingTimeInterval(TimeInterval(wait))
            while status.status == "awaiting_approval", let handle, Date() < deadline {
                try await Task.sleep(for: .seconds(1))
                status = try await personalizer.recoveryStatus(issuer: base, recoveryID: status.recoveryID, handle: handle)
            }
            let report = Report(recoveryID: status.recoveryID, status: status.status, url: status.url, expiresAt: status.expiresAt)
            if options.json { return Output.encodable(report) }
            print("recovery_id: \(report.recoveryID)")
            print("status: \(report.status)")
            if let url = report.url { print("url: \(url)") }
            print("expires_at: \(ISO8601DateFormatter().string(from: report.expiresAt))")
        }
    }

    struct Unregister: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove another activation of my account (see `tessera device devices`).",
            discussion: "Prints `result: apiAccessUnregisterDevice` and the removed activation.")
        @OptionGroup var options: DeviceOptions
        @OptionGroup var proof: ProofOptions
        @Argument(help: "The activation id to remove.") var id: String

        func run() async throws {
            let target = ActivationID(id)
            let (personalizer, result) = try await Device.runProcess(options: options, proof: proof) {
                try await $0.startUnregisterDevice(target, activation: $1)
            }
            guard case .apiAccessUnregisterDevice(let process) = result else { throw Device.unexpected(result) }
            let removed = try await Device.reporting(json: options.json) { try await personalizer.finishUnregisterDevice(process) }
            ProcessReport(result: "apiAccessUnregisterDevice", removed: removed.rawValue).show(json: options.json)
        }
    }

    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "This activation's authentications: service, purpose, time, outcome, factors (newest first).")
        @OptionGroup var options: DeviceOptions
        @Option(help: "The user whose activation to show, when this device holds several.") var user: String?
        @Option(help: "At most this many entries (1–500).") var limit = 100

        struct Row: Encodable {
            let requestID: String
            let service: String?
            let purpose: String
            let outcome: String
            let factors: [String]
            let username: String?
            let at: Date
            enum CodingKeys: String, CodingKey {
                case service, purpose, outcome, factors, username, at
                case requestID = "request_id"
            }
        }

        func run() async throws {
            let personalizer = Personalizer(keyStore: try options.keyStore())
            let entries = try await Device.reporting(json: options.json) { () -> [HistoryEntry] in
                let activation = try await Device.chooseActivation(personalizer, user: user)
                return try await personalizer.history(activation: activation, limit: limit)
            }
            let rows = entries.map {
                Row(
                    requestID: $0.requestID.rawValue, service: $0.service, purpose: $0.purpose.rawValue, outcome: $0.outcome,
                    factors: $0.factors.map(\.rawValue), username: $0.username, at: $0.at)
            }
            if options.json { return Output.encodable(["entries": rows]) }
            for row in rows {
                print(
                    "\(ISO8601DateFormatter().string(from: row.at))\t\(row.purpose)\t\(row.service ?? "-")\t\(row.outcome)\t"
                        + "\(row.factors.joined(separator: "+"))\t\(row.username ?? "")")
            }
        }
    }
}

extension Device.Activate {
    /// Merges the invitation into the activation this device already holds for its issuer.
    func merge(_ link: URL, into activation: Activation, personalizer: Personalizer) async throws {
        let proof = try ProofOptions.parse(["--pin", pin, "--user", activation.username])
        let (_, result) = try await Device.runProcess(options: options, proof: proof) { personalizer, _ in
            try await personalizer.startMerge(url: link, into: activation)
        }
        guard case .apiAccessMergeComplete(let identifier) = result else { throw Device.unexpected(result) }
        ProcessReport(result: "apiAccessMergeComplete", activationID: activation.id.rawValue, idmIdentifier: identifier.rawValue)
            .show(json: options.json)
    }
}
