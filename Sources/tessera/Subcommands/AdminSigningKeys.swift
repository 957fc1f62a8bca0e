import ArgumentParser
import Foundation

extension Admin.Tenant {
    struct RotateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-key",
            abstract: "Make a new signing key that signs the tenant's tokens from now on; prints its kid.",
            discussion: "The older keys stay in the tenant's JWKS, so tokens they signed still verify, until retire-key removes them.")
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String

        func run() async throws {
            let result = try await options.client().call("POST", "admin/tenants/\(tenant)/signing-keys")
            if options.json { return Output.json(result) }
            print((result as? [String: Any])?["kid"] ?? "")
        }
    }

    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "keys", abstract: "List a tenant's signing keys: kid, active or not, creation time.")
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String

        func run() async throws {
            let result = try await options.client().get("admin/tenants/\(tenant)/signing-keys")
            if options.json { return Output.json(result) }
            Self.printKeys(result)
        }

        /// A line per key: `kid<TAB>active|inactive<TAB>created`.
        static func printKeys(_ result: Any) {
            for key in (result as? [String: Any])?["keys"] as? [[String: Any]] ?? [] {
                let created = (key["created_at"] as? NSNumber).map {
                    ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: $0.doubleValue))
                } ?? ""
                print("\(key["kid"] ?? "")\t\((key["active"] as? Bool) == true ? "active" : "inactive")\t\(created)")
            }
        }
    }

    struct RetireKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retire-key",
            abstract: "Remove a signing key that no longer signs from the tenant's JWKS; prints the keys left.",
            discussion: "Tokens it signed stop verifying. The active key cannot be retired: rotate first.")
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String
        @Option(help: "The key's kid (from keys).") var kid: String

        func run() async throws {
            let result = try await options.client().call("DELETE", "admin/tenants/\(tenant)/signing-keys/\(kid)")
            if options.json { return Output.json(result) }
            Keys.printKeys(result)
        }
    }
}
