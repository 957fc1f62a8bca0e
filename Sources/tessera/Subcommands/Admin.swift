import ArgumentParser
import Foundation
import TesseraDomain

struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage tenants and their signing keys, services, users, invitations, activations and sessions, read history and the audit log, and keep the data bounded, over the admin API.",
        subcommands: [
            Tenant.self, Service.self, User.self, Invite.self, Invitation.self, ActivationCommands.self, Session.self, History.self,
            Audit.self, Stats.self, Purge.self, Key.self,
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
            @Option(help: "Waits in seconds, comma separated; the last repeats (e.g. 30,60,300).") var lockoutWaits: String?
            @Option(help: "Failures that lock an activation for good (0 = never).") var lockoutPermanentAfter: Int?
            @Option(help: "Factor combinations account processes need (default \"device+pin,device+biometric\").")
            var processPolicy: String?
            @Option(help: "Single sign-on: seconds after a full login during which the same device logs in to other services with --sso-policy (0 = off).")
            var ssoLifetime: Int?
            @Option(help: "Single sign-on: the factor combinations enough within the session (default \"device\").")
            var ssoPolicy: String?

            func run() async throws {
                var body: [String: Any] = ["name": name]
                if let processPolicy { body["process_policy"] = processPolicy }
                if let ssoLifetime { body["sso_lifetime"] = ssoLifetime }
                if let ssoPolicy { body["sso_policy"] = ssoPolicy }
                body["lockout"] = try lockoutBody(
                    freeAttempts: lockoutFreeAttempts, waits: lockoutWaits, permanentAfter: lockoutPermanentAfter)
                let result = try await options.client().call("POST", "admin/tenants", body: body)
                if options.json { return Output.json(result) }
                print((result as? [String: Any])?["issuer"] ?? "")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List tenants with their issuer URLs.")
            @OptionGroup var options: AdminOptions

            func run() async throws {
                let result = try await options.client().get("admin/tenants")
                if options.json { return Output.json(result) }
                for tenant in (result as? [String: Any])?["tenants"] as? [[String: Any]] ?? [] {
                    print("\(tenant["name"] ?? "")\t\(tenant["issuer"] ?? "")")
                }
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
            @Option(help: "Exact redirect URI (repeat for several).") var redirectUri: [String] = []
            @Flag(help: "A public client (no secret; PKCE S256 required).") var `public` = false
            @Option(help: "Factor policy: alternatives separated by ',', factors joined by '+'.") var policy = "device+pin,device+biometric"
            @Option(help: "User attributes the service asks for, comma separated (e.g. email,name).") var attributes: String?
            @Option(help: "Let the service start backchannel authentications (OpenID CIBA) in this token delivery mode: poll or ping.")
            var backchannelMode: String?
            @Option(help: "Ping mode: the service's URL for notifications (backchannel_client_notification_endpoint).")
            var notificationEndpoint: String?

            func validate() throws {
                guard !redirectUri.isEmpty || backchannelMode != nil else {
                    throw ValidationError("give at least one --redirect-uri (or --backchannel-mode for a backchannel-only service)")
                }
                if let backchannelMode, !["poll", "ping"].contains(backchannelMode) {
                    throw ValidationError("--backchannel-mode is poll or ping")
                }
                if (backchannelMode == "ping") != (notificationEndpoint != nil) {
                    throw ValidationError("--notification-endpoint goes with --backchannel-mode ping, and only with it")
                }
            }

            func run() async throws {
                var body: [String: Any] = [
                    "name": name, "redirect_uris": redirectUri, "public": `public`, "policy": policy,
                    "attributes": (attributes ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                        .filter { !$0.isEmpty },
                ]
                if let backchannelMode { body["backchannel_token_delivery_mode"] = backchannelMode }
                if let notificationEndpoint { body["backchannel_client_notification_endpoint"] = notificationEndpoint }
                let result = try await options.client().call("POST", "admin/tenants/\(tenant)/services", body: body)
                if options.json { return Output.json(result) }
                Output.fields(
                    result as? [String: Any] ?? [:],
                    ["client_id", "client_secret", "issuer", "policy", "backchannel_token_delivery_mode"])
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List a tenant's services.")
            @OptionGroup var options: AdminOptions
            @Option(help: "Tenant name.") var tenant: String

            func run() async throws {
                let result = try await options.client().get("admin/tenants/\(tenant)/services")
                if options.json { return Output.json(result) }
                for service in (result as? [String: Any])?["services"] as? [[String: Any]] ?? [] {
                    print("\(service["client_id"] ?? "")\t\(service["name"] ?? "")\t\(service["policy"] ?? "")")
                }
            }
        }
    }

    struct User: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create, list, show, change, disable, enable and delete users.",
            subcommands: [Create.self, List.self, Get.self, Update.self, Disable.self, Enable.self, Delete.self])

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
                let result = try await options.client().call(
                    "POST", "admin/tenants/\(tenant)/users", body: ["username": username, "attributes": attributes])
                if options.json { return Output.json(result) }
                Output.fields(result as? [String: Any] ?? [:], ["id", "username", "attributes"])
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

        func run() async throws {
            var body: [String: Any] = ["username": username]
            if let ttl { body["ttl_seconds"] = ttl }
            let result = try await options.client().call("POST", "admin/tenants/\(tenant)/invitations", body: body)
            if options.json { return Output.json(result) }
            var fields = result as? [String: Any] ?? [:]
            if let expires = (fields["expires_at"] as? NSNumber)?.doubleValue {
                fields["expires_at"] = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: expires))
            }
            Output.fields(fields, ["url", "expires_at"])
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
                var path = "admin/tenants/\(tenant)/activations"
                if let username, let encoded = username.addingPercentEncoding(withAllowedCharacters: .alphanumerics) {
                    path += "?username=\(encoded)"
                }
                let client = try options.client()
                guard let url = URL(string: client.base.absoluteString + "/" + path) else { throw ValidationError("bad server URL") }
                let response = try await client.transport.send(
                    .init(method: "GET", url: url, headers: ["Authorization": "Bearer \(client.token)"]))
                guard response.status == 200, let result = try? JSONSerialization.jsonObject(with: response.body) else {
                    throw CLIError("HTTP \(response.status) \(String(decoding: response.body, as: UTF8.self))")
                }
                if options.json { return Output.json(result) }
                for activation in (result as? [String: Any])?["activations"] as? [[String: Any]] ?? [] {
                    let lock: String
                    if (activation["permanently_locked"] as? Bool) == true {
                        lock = "locked permanently"
                    } else if let until = (activation["locked_until"] as? NSNumber)?.doubleValue,
                        until > Date().timeIntervalSince1970
                    {
                        lock = "locked until \(Date(timeIntervalSince1970: until))"
                    } else {
                        lock = "unlocked"
                    }
                    print(
                        "\(activation["id"] ?? "")\t\(activation["username"] ?? "")\t\(Output.text(activation["factors"] ?? []))\t\(activation["failed_attempts"] ?? 0) failed\t\(lock)"
                    )
                }
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Remove an activation and its keys: its proofs are refused from now on, and the sessions its logins started end.")
            @OptionGroup var options: AdminOptions
            @Argument(help: "Activation id.") var id: String

            func run() async throws {
                let result = try await options.client().call("POST", "admin/activations/\(id)/revoke")
                if options.json { return Output.json(result) }
                Output.fields(result as? [String: Any] ?? [:], ["id", "username", "status"])
            }
        }

        struct Unlock: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Clear an activation's failures and lock.")
            @OptionGroup var options: AdminOptions
            @Argument(help: "Activation id.") var id: String

            func run() async throws {
                let result = try await options.client().call("POST", "admin/activations/\(id)/unlock")
                if options.json { return Output.json(result) }
                Output.fields(result as? [String: Any] ?? [:], ["id", "username", "failed_attempts", "permanently_locked"])
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

        func run() async throws {
            var query = ["limit=\(limit)"]
            if let tenant, let encoded = tenant.addingPercentEncoding(withAllowedCharacters: .alphanumerics) { query.append("tenant=\(encoded)") }
            if let since { query.append("since=\(since)") }
            let result = try await options.client().get("admin/audit?" + query.joined(separator: "&"))
            if options.json { return Output.json(result) }
            for entry in (result as? [String: Any])?["entries"] as? [[String: Any]] ?? [] {
                let at = (entry["at"] as? NSNumber).map { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: $0.doubleValue)) } ?? ""
                let details = (entry["details"] as? [String: Any] ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                print("\(at)\t\(entry["tenant"] ?? "-")\t\(entry["actor"] ?? "")\t\(entry["action"] ?? "")\t\(entry["target"] ?? "-")\t\(details.joined(separator: " "))")
            }
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Row counts per table and the last purge (of any node).")
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let (stats, json) = try await options.client().call("GET", "admin/stats", as: Maintenance.Stats.self)
            if options.json { return Output.json(json) }
            for (table, count) in stats.tables.sorted(by: { $0.key < $1.key }) { print("\(table)\t\(count)") }
            if let purge = stats.lastPurge {
                let at = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(purge.at)))
                print("last purge\t\(at)\t\(purge.deleted.values.reduce(0, +)) rows deleted")
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
            let (report, json) = try await options.client().call("POST", "admin/purge", as: Maintenance.PurgeReport.self)
            if options.json { return Output.json(json) }
            for (target, count) in report.deleted.sorted(by: { $0.key < $1.key }) { print("\(target)\t\(count)") }
        }
    }
}
