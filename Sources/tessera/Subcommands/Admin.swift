import ArgumentParser
import Foundation
import TesseraAdminAPI
import TesseraCore

struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage tenants and their signing keys, services, users, invitations, activations, security keys, sessions, external identity providers, webhooks and groups, read history and the audit log (newest first, or as a feed), and keep the data bounded, over the admin API.",
        subcommands: [
            Tenant.self, Service.self, User.self, Invite.self, Invitation.self, ActivationCommands.self, SecurityKey.self, Session.self, History.self,
            Audit.self, Feed.self, Stats.self, Purge.self, Key.self, Webhook.self, ConsoleUser.self, RegistrationToken.self, IdentityProvider.self,
            Group.self, Export.self, Apply.self,
        ])

    struct Tenant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create, list, show, change and delete tenants, and rotate their signing keys.",
            subcommands: [
                Create.self, List.self, Get.self, Update.self, Delete.self, RotateKey.self, Keys.self, ActivateKey.self, RetireKey.self,
            ])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Create a tenant; prints its issuer URL.")
            @OptionGroup var options: AdminOptions
            @Argument(help: "Tenant name: a-z, 0-9 and '-'.") var name: String
            @Option(help: "Failed attempts before the first wait (0-5).") var lockoutFreeAttempts: Int?
            @Option(
                help: "Waits in seconds, comma separated, the last repeats: each at least 5, never shorter than the one before, the last at least 60 (e.g. 30,60,300).")
            var lockoutWaits: String?
            @Option(help: "Failures that lock an activation for good: 1 to 20 (default 10); lockout cannot be switched off.")
            var lockoutPermanentAfter: Int?
            @Option(help: "Factor combinations account processes need (default \"device+pin,device+biometric\").")
            var processPolicy: String?
            @Option(help: "Single sign-on: seconds after a full login during which the same device logs in to other services with --sso-policy (0 = off).")
            var ssoLifetime: Int?
            @Option(help: "Single sign-on: the factor combinations enough within the session (default \"device\").")
            var ssoPolicy: String?

            func run() async throws {
                let body = TenantCreation(
                    name: name,
                    lockout: try lockoutPolicy(freeAttempts: lockoutFreeAttempts, waits: lockoutWaits, permanentAfter: lockoutPermanentAfter),
                    processPolicy: processPolicy, ssoLifetime: ssoLifetime, ssoPolicy: ssoPolicy)
                let tenant = try await options.calling { api in try await api.createTenant(body: .json(body)).created.body.json }
                if options.json { return Output.encodable(tenant) }
                print(tenant.issuer)
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List tenants with their issuer URLs.")
            @OptionGroup var options: AdminOptions

            func run() async throws {
                let answer = try await options.calling { api in try await api.listTenants().ok.body.json }
                if options.json { return Output.encodable(answer) }
                for tenant in answer.tenants { print("\(tenant.name)\t\(tenant.issuer)") }
            }
        }
    }

    struct Service: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register, list, show, change and delete services (OpenID Connect clients), and rotate their secrets.",
            subcommands: [Create.self, List.self, Get.self, Update.self, RotateSecret.self, Delete.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Register a service; prints client_id and, for confidential services, client_secret.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String
            @Option(help: "Service name shown to users.") var name: String
            @Option(help: "Its client_id: 1 to 128 of A-Z a-z 0-9 . _ ~ -, unique on the server (default: a random one).")
            var clientId: String?
            @Option(help: "Exact redirect URI (repeat for several).") var redirectUri: [String] = []
            @Flag(help: "A public client (no secret; PKCE S256 required).") var `public` = false
            @Option(help: "Factor policy: alternatives separated by ',', factors joined by '+'.") var policy = "device+pin,device+biometric"
            @Option(help: "User attributes the service asks for, comma separated (e.g. email,name).") var attributes: String?
            @Option(help: "Let the service start backchannel authentications (OpenID CIBA) in this token delivery mode: poll or ping.")
            var backchannelMode: String?
            @Option(help: "Ping mode: the service's URL for notifications (backchannel_client_notification_endpoint).")
            var notificationEndpoint: String?
            @Flag(
                inversion: .prefixedNo,
                help: "Number matching: the login page shows a number the user picks on the device (on by default).")
            var numberMatching = true
            @Option(help: "A role: a name for some of the policy's combinations, as NAME=COMBINATIONS (repeatable, in order of preference).")
            var role: [String] = []
            @Option(help: "What the service sees as sub: public (the user's id) or pairwise (an id for this service alone).")
            var subjectType: SubjectType?
            @Flag(help: "A step-up answered on the phone also gives the app an identity token for this service.")
            var appIdentityToken = false
            @Option(help: "The algorithm of its ID tokens (id_token_signed_response_alg): ES256 (default), RS256 or EdDSA.")
            var idTokenAlg: String?
            @Option(help: "Exact address RP-initiated logout may return to (post_logout_redirect_uri; repeat for several).")
            var postLogoutRedirectUri: [String] = []
            @Option(help: "Where a logout_token is posted when one of the service's sessions ends (OpenID Back-Channel Logout).")
            var backchannelLogoutUri: String?
            @Flag(help: "Its authorization requests must be pushed to {issuer}/par first (RFC 9126).")
            var requirePushedAuthorizationRequests = false
            @Flag(help: "Its access tokens are always DPoP-bound: a token request without a DPoP proof is refused (RFC 9449).")
            var dpopBoundAccessTokens = false
            @Flag(help: "The gematik IDP profile: token requests carry a key_verifier, the tokens go back encrypted under its token_key.")
            var gematikProfile = false
            @OptionGroup var machine: MachineClientOptions

            func validate() throws {
                let signsInUsers = try machine.grantTypeList.map { $0.contains(.authorizationCode) } ?? true
                guard !redirectUri.isEmpty || backchannelMode != nil || !signsInUsers else {
                    throw ValidationError(
                        "give at least one --redirect-uri (or --backchannel-mode for a backchannel-only service, or --grant-types without authorization_code)")
                }
                if let backchannelMode, !["poll", "ping"].contains(backchannelMode) {
                    throw ValidationError("--backchannel-mode is poll or ping")
                }
                if (backchannelMode == "ping") != (notificationEndpoint != nil) {
                    throw ValidationError("--notification-endpoint goes with --backchannel-mode ping, and only with it")
                }
                if let idTokenAlg {
                    _ = try documented(idTokenAlg, option: "--id-token-alg") as Components.Schemas.CreateService.IdTokenSignedResponseAlgPayload
                }
            }

            func run() async throws {
                typealias Body = Components.Schemas.CreateService
                var body = Body(
                    name: name, redirectUris: redirectUri, _public: `public`, policy: policy,
                    attributes: (attributes ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty },
                    backchannelTokenDeliveryMode: try backchannelMode.map { try documented($0, option: "--backchannel-mode") },
                    backchannelClientNotificationEndpoint: notificationEndpoint, numberMatching: numberMatching,
                    roles: role.isEmpty ? nil : try roles(role),
                    subjectType: try subjectType.map { try documented($0.rawValue, option: "--subject-type") },
                    appIdentityToken: appIdentityToken,
                    idTokenSignedResponseAlg: try idTokenAlg.map { try documented($0, option: "--id-token-alg") },
                    postLogoutRedirectUris: postLogoutRedirectUri.isEmpty ? nil : postLogoutRedirectUri,
                    backchannelLogoutUri: backchannelLogoutUri,
                    requirePushedAuthorizationRequests: requirePushedAuthorizationRequests ? true : nil,
                    dpopBoundAccessTokens: dpopBoundAccessTokens ? true : nil, gematikProfile: gematikProfile ? true : nil)
                body.clientId = clientId
                try machine.apply(to: &body)
                let service = try await options.calling { api in
                    try await api.createService(path: .init(tenant: tenant), body: .json(body)).created.body.json
                }
                if options.json { return Output.encodable(service) }
                print("client_id: \(service.clientId)")
                if let secret = service.clientSecret { print("client_secret: \(secret)") }
                print("issuer: \(service.issuer)")
                print("policy: \(service.policy)")
                if let mode = service.backchannelTokenDeliveryMode { print("backchannel_token_delivery_mode: \(mode.rawValue)") }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List a tenant's services.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String

            func run() async throws {
                let answer = try await options.calling { api in try await api.listServices(path: .init(tenant: tenant)).ok.body.json }
                if options.json { return Output.encodable(answer) }
                for service in answer.services { print("\(service.clientId)\t\(service.name)\t\(service.policy)") }
            }
        }
    }

    struct User: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create, list, show, change, disable, enable, delete and import users, and approve their recoveries.",
            subcommands: [
                Create.self, List.self, Get.self, Update.self, Disable.self, Enable.self, Delete.self, Import.self, Recoveries.self,
                ApproveRecovery.self,
            ])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Create a user in a tenant.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String
            @Option(help: "Username, unique in the tenant.") var username: String
            @Option(help: "An attribute as key=value (repeat for several).") var attribute: [String] = []

            func run() async throws {
                var attributes: [String: String] = [:]
                for pair in attribute {
                    guard let equals = pair.firstIndex(of: "=") else { throw ValidationError("--attribute takes key=value") }
                    attributes[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
                }
                let body = Components.Schemas.CreateUser(username: username, attributes: .init(additionalProperties: attributes))
                let user = try await options.calling { api in
                    try await api.createUser(path: .init(tenant: tenant), body: .json(body)).created.body.json
                }
                if options.json { return Output.encodable(user) }
                let values = user.attributes.additionalProperties
                print("id: \(user.id)")
                print("username: \(user.username)")
                print("attributes: \(values.keys.sorted().map { "\($0)=\(values[$0] ?? "")" }.joined(separator: " "))")
            }
        }
    }

    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a single-use, expiring activation link for a user; prints its url.")
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String
        @Option(help: "Username.") var username: String
        @Option(help: "Lifetime in seconds (default 7 days).") var ttl: Int?
        @Option(
            help: ArgumentHelp(
                "link (default): print the activation link; email: send it to the user's email attribute, with its QR code.",
                discussion: "An e-mailed link is printed nowhere, so whoever invites cannot activate as the user. Needs the server's --smtp-url."))
        var deliver: String?

        func validate() throws {
            if let deliver { _ = try documented(deliver, option: "--deliver") as Components.Schemas.CreateInvitation.DeliverPayload }
        }

        func run() async throws {
            let body = Components.Schemas.CreateInvitation(
                username: username, ttlSeconds: ttl, deliver: try deliver.map { try documented($0, option: "--deliver") })
            let invitation = try await options.calling { api in
                try await api.invite(path: .init(tenant: tenant), body: .json(body)).created.body.json
            }
            if options.json { return Output.encodable(invitation) }
            if let url = invitation.url { print("url: \(url)") }
            if let email = invitation.email { print("sent to: \(email)") }
            print("expires_at: \(Show.date(invitation.expiresAt))")
        }
    }

    struct ActivationCommands: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "activation", abstract: "List, unlock and revoke activations.",
            subcommands: [List.self, Unlock.self, Revoke.self])

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List a tenant's activations, with their lock state.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String
            @Option(help: "Only this user's activations.") var username: String?

            func run() async throws {
                let answer = try await options.calling { api in
                    try await api.listActivations(path: .init(tenant: tenant), query: .init(username: username)).ok.body.json
                }
                if options.json { return Output.encodable(answer) }
                for activation in answer.activations {
                    let lock: String
                    if activation.permanentlyLocked {
                        lock = "locked permanently"
                    } else if let until = activation.lockedUntil.map({ Date(timeIntervalSince1970: $0) }), until > Date() {
                        lock = "locked until \(until)"
                    } else {
                        lock = "unlocked"
                    }
                    print(
                        "\(activation.id)\t\(activation.username)\t\(activation.factors.joined(separator: ","))\t"
                            + "\(activation.failedAttempts) failed\t\(lock)")
                }
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Remove an activation and its keys: its proofs are refused from now on, and the sessions its logins started end.")
            @OptionGroup var options: AdminOptions
            @Argument(help: "Activation id.") var id: String

            func run() async throws {
                let activation = try await options.calling { api in
                    try await api.revokeActivation(path: .init(activation: id)).ok.body.json
                }
                if options.json { return Output.encodable(activation) }
                print("id: \(activation.id)")
                print("username: \(activation.username)")
                print("status: \(activation.status)")
            }
        }

        struct Unlock: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Clear an activation's failures and lock.")
            @OptionGroup var options: AdminOptions
            @Argument(help: "Activation id.") var id: String

            func run() async throws {
                let activation = try await options.calling { api in
                    try await api.unlockActivation(path: .init(activation: id)).ok.body.json
                }
                if options.json { return Output.encodable(activation) }
                print("id: \(activation.id)")
                print("username: \(activation.username)")
                print("failed_attempts: \(activation.failedAttempts)")
                print("permanently_locked: \(activation.permanentlyLocked)")
            }
        }
    }

    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The audit log: every administrative and account change (who, what, when), newest first.")
        @OptionGroup var options: AdminOptions
        @Option(help: "Only this tenant's entries.") var tenant: String?
        @Option(help: "At most this many entries (1–1000).") var limit = 100
        @Option(help: "Only entries since this time (seconds since 1970).") var since: Int?
        @Option(help: "Only actions beginning so (e.g. user. or activation.revoke).") var action: String?
        @Option(help: "Only this actor (admin, key:ID, operator:NAME, activation:ID, system).") var actor: String?

        func run() async throws {
            let answer = try await options.calling { api in
                try await api.listAudit(query: .init(tenant: tenant, since: since, action: action, actor: actor, limit: limit)).ok.body.json
            }
            if options.json { return Output.encodable(answer) }
            for entry in answer.entries {
                let details = entry.details.additionalProperties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                print(
                    "\(Show.date(entry.at))\t\(entry.tenant ?? "-")\t\(entry.actor)\t\(entry.action)\t\(entry.target ?? "-")\t"
                        + details.joined(separator: " "))
            }
        }
    }

    struct Feed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Page the audit log or the authentication history in commit order, every entry once, as JSON lines (for a SIEM).",
            discussion: """
                Prints each entry as one JSON line from --cursor on (none: from the first entry kept), and the \
                cursor to continue from on standard error as `next_cursor: C`. With --follow it keeps asking \
                every --interval seconds until stopped.
                """)
        enum Kind: String, ExpressibleByArgument, CaseIterable { case audit, history }
        @OptionGroup var options: AdminOptions
        @Argument(help: "audit or history.") var kind: Kind
        @Option(help: "Only this tenant's entries.") var tenant: String?
        @Option(help: "The next_cursor a previous run printed.") var cursor: String?
        @Flag(help: "Keep reading new entries as they commit.") var follow = false
        @Option(help: "Seconds between reads with --follow (1–3600).") var interval = 2

        func validate() throws {
            guard (1...3600).contains(interval) else { throw ValidationError("--interval is 1 to 3600 seconds") }
        }

        func run() async throws {
            var cursor = cursor
            while true {
                // A page at a time until a short one; then, following, wait and ask again.
                var count = 0
                repeat {
                    let next: String
                    switch kind {
                    case .audit:
                        let page = try await options.calling { api in
                            try await api.auditFeed(query: .init(tenant: tenant, cursor: cursor, limit: 1000)).ok.body.json
                        }
                        page.entries.forEach { Output.line($0) }
                        (count, next) = (page.entries.count, page.nextCursor)
                    case .history:
                        let page = try await options.calling { api in
                            try await api.historyFeed(query: .init(tenant: tenant, cursor: cursor, limit: 1000)).ok.body.json
                        }
                        page.entries.forEach { Output.line($0) }
                        (count, next) = (page.entries.count, page.nextCursor)
                    }
                    cursor = next
                } while count == 1000
                FileHandle.standardError.write(Data("next_cursor: \(cursor ?? "0")\n".utf8))
                guard follow else { return }
                try await Task.sleep(for: .seconds(interval))
            }
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Row counts per table, the last purge (of any node), and what waits in each outbox (e-mail, webhooks, back-channel logout).")
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let stats = try await options.calling { api in try await api.getStats().ok.body.json }
            if options.json { return Output.encodable(stats) }
            for (table, count) in stats.tables.additionalProperties.sorted(by: { $0.key < $1.key }) { print("\(table)\t\(count)") }
            for (kind, state) in stats.outbound.additionalProperties.sorted(by: { $0.key < $1.key }) {
                print("outbound \(kind)\t\(state.waiting) waiting, \(state.failing) failing")
            }
            if let purge = stats.lastPurge {
                print("last purge\t\(Show.date(Double(purge.at)))\t\(purge.deleted.additionalProperties.values.reduce(0, +)) rows deleted")
            } else {
                print("last purge\tnever")
            }
        }
    }

    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete expired and spent data now (each node also does so every --purge-interval); prints what went.")
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let report = try await options.calling { api in try await api.purge().ok.body.json }
            if options.json { return Output.encodable(report) }
            for (target, count) in report.deleted.additionalProperties.sorted(by: { $0.key < $1.key }) { print("\(target)\t\(count)") }
        }
    }
}
