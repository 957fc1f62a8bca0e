import ArgumentParser
import Foundation
import TesseraCore
import TesseraKit

extension Device {
    struct Pending: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the requests services started for this device's users (push step-up, OpenID CIBA).",
            discussion: """
                One line per request: id, service, binding_message, user, expiry and status (pending, or \
                ongoing_on_another_device when another device of the user took it up). With --wait, waits up to \
                that many seconds for a request when there is none.
                """)
        @OptionGroup var options: DeviceOptions
        @Option(help: "Wait up to this many seconds (1-600) for a request to arrive when none is pending.") var wait: Int?

        func validate() throws {
            if let wait, !(1...600).contains(wait) { throw ValidationError("--wait takes 1 to 600 seconds") }
        }

        func run() async throws {
            let authenticator = Authenticator(keyStore: try options.keyStore())
            let requests = try await Device.reporting(json: options.json) { () -> [PendingAuthentication] in
                guard let wait else { return try await authenticator.pendingRequests() }
                return try await Self.firstNonEmpty(authenticator, within: .seconds(wait))
            }
            let rows = requests.map(PendingRow.init)
            if options.json { return Output.encodable(["requests": rows]) }
            for row in rows {
                let expires = ISO8601DateFormatter().string(from: row.expiresAt)
                print([row.id, row.service, row.bindingMessage ?? "", row.user, expires, row.status].joined(separator: "\t"))
            }
        }

        /// Follows the long-polled updates until a request shows up or the time is over.
        static func firstNonEmpty(_ authenticator: Authenticator, within limit: Duration) async throws -> [PendingAuthentication] {
            try await withThrowingTaskGroup(of: [PendingAuthentication].self) { group in
                group.addTask {
                    for try await requests in authenticator.pendingRequestUpdates(wait: 20) where !requests.isEmpty {
                        return requests
                    }
                    return []
                }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return try await authenticator.pendingRequests()
                }
                let first = try await group.next() ?? []
                group.cancelAll()
                return first
            }
        }
    }

    struct PendingRow: Encodable {
        let id: String
        let service: String
        let clientID: String
        let bindingMessage: String?
        let user: String
        let expiresAt: Date
        let status: String

        init(_ request: PendingAuthentication) {
            id = request.requestID.rawValue
            service = request.service.name
            clientID = request.service.clientID.rawValue
            bindingMessage = request.bindingMessage
            user = request.username
            expiresAt = request.expiresAt
            status = request.status.rawValue
        }

        enum CodingKeys: String, CodingKey {
            case id, service, user, status
            case clientID = "client_id"
            case bindingMessage = "binding_message"
            case expiresAt = "expires_at"
        }
    }

    /// The pending request with this id, claimed for this device.
    static func claimPending(_ id: String, authenticator: Authenticator, json: Bool) async throws -> AuthenticationUserInformation {
        try await reporting(json: json) {
            // The id may come from the list or straight from the service (its auth_req_id).
            switch try await authenticator.authenticate(sessionID: id) {
            case .sign(let information): return information
            case .ended(let status): throw CLIError("request \(id) is no longer pending: \(status.rawValue)")
            }
        }
    }

    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Approve a pending request (see `tessera device pending`): claim it and sign it with the factors.",
            discussion: """
                The id is the request's in `tessera device pending`, which is the service's auth_req_id: an id the \
                service handed over directly works as well. Prints `result` like `login`: userLogin (with the \
                service's role, the subject it receives and, where the service allows it, the step-up's \
                identityToken), or lockout with isPermanent and lockedUntil. Exit code 0 for userLogin, 3 for \
                lockout, 1 for other errors (also when the request is no longer pending, with its status).
                """)
        @OptionGroup var options: DeviceOptions
        @Argument(help: "The request id from `tessera device pending`.") var id: String
        @Option(help: "The PIN.") var pin: String?
        @Option(help: "The factor combination to use, e.g. device,pin (default: the first one this device can supply).")
        var factors: String?
        @Option(help: "A TOTP code (default: computed from the secret this device enrolled).") var otp: String?

        func run() async throws {
            let authenticator = Authenticator(keyStore: try options.keyStore(), biometrics: options.biometrics())
            let information = try await Device.claimPending(id, authenticator: authenticator, json: options.json)
            if let message = information.bindingMessage, !options.json { print("binding_message: \(message)") }
            try await Device.answer(
                information, deny: false, factors: factors, pin: pin, otp: otp, authenticator: authenticator,
                securityKey: try options.securityKey(), json: options.json)
        }
    }

    struct Deny: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decline a pending request: the service is told the user declined (access_denied).")
        @OptionGroup var options: DeviceOptions
        @Argument(help: "The request id from `tessera device pending`.") var id: String

        func run() async throws {
            let authenticator = Authenticator(keyStore: try options.keyStore())
            let information = try await Device.claimPending(id, authenticator: authenticator, json: options.json)
            try await Device.answer(
                information, deny: true, factors: nil, pin: nil, otp: nil, authenticator: authenticator, json: options.json)
        }
    }
}
