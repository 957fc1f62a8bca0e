import ArgumentParser
import Foundation
import TesseraAdminAPI

extension Admin.Tenant {
    struct RotateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-key",
            abstract: "Make a new signing key that signs the tenant's tokens from now on (or once activated); prints its kid.",
            discussion: """
                Each algorithm has its own key: --algorithm RS256 or EdDSA rotates the key of the services whose \
                ID tokens use it (a tenant's first key of those is made when a service first needs it). \
                The older keys stay in the tenant's JWKS, so tokens they signed still verify, until retire-key \
                removes them. With --publish-only the new key is only published: activate-key makes it sign, \
                once services have had time to fetch the JWKS again: wait at least 6 minutes (services may cache \
                it for 5, and each node keeps a tenant's keys for up to 1).
                """)
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String
        @Flag(help: "Publish the new key in the JWKS without signing with it yet (see activate-key).") var publishOnly = false
        @Option(help: "The algorithm whose key rotates: ES256 (default), RS256 or EdDSA.") var algorithm: String?

        func run() async throws {
            typealias Request = Components.Schemas.SigningKeyRotation
            let chosen = try algorithm.map {
                guard let known = Request.AlgorithmPayload(rawValue: $0), known != ._empty_ else {
                    throw ValidationError("--algorithm is ES256, RS256 or EdDSA")
                }
                return known
            }
            let rotation = try await options.calling { api in
                try await api.rotateSigningKey(
                    path: .init(tenant: tenant), body: .json(Request(activate: publishOnly ? false : nil, algorithm: chosen))
                ).created.body.json
            }
            if options.json { return Output.encodable(rotation) }
            print(rotation.kid)
        }
    }

    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "keys", abstract: "List a tenant's signing keys: kid, active or not, creation time, algorithm.")
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String

        func run() async throws {
            let answer = try await options.calling { api in
                try await api.listSigningKeys(path: .init(tenant: tenant)).ok.body.json
            }
            if options.json { return Output.encodable(answer) }
            Self.printKeys(answer.keys)
        }

        /// A line per key: `kid<TAB>active|inactive<TAB>created<TAB>algorithm`.
        static func printKeys(_ keys: [Components.Schemas.SigningKey]) {
            for key in keys {
                print("\(key.kid)\t\(key.active ? "active" : "inactive")\t\(Show.date(key.createdAt))\t\(key.algorithm.rawValue)")
            }
        }
    }

    struct ActivateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "activate-key",
            abstract: "Make a published signing key the one that signs the tenant's tokens; prints the keys.",
            discussion: "The key that signed before stays in the JWKS until retire-key removes it.")
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String
        // A kid is base64url and may begin with "-": the next argument is the value, whatever it looks like.
        @Option(parsing: .unconditional, help: "The key's kid (from rotate-key --publish-only or keys).") var kid: String

        func run() async throws {
            let activation = try await options.calling { api in
                try await api.activateSigningKey(path: .init(tenant: tenant, kid: kid)).ok.body.json
            }
            if options.json { return Output.encodable(activation) }
            Keys.printKeys(activation.keys)
        }
    }

    struct RetireKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retire-key",
            abstract: "Remove a signing key that no longer signs from the tenant's JWKS; prints the keys left.",
            discussion: "Tokens it signed stop verifying. The active key cannot be retired: rotate, or activate another key, first.")
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String
        @Option(parsing: .unconditional, help: "The key's kid (from keys).") var kid: String

        func run() async throws {
            let retirement = try await options.calling { api in
                try await api.retireSigningKey(path: .init(tenant: tenant, kid: kid)).ok.body.json
            }
            if options.json { return Output.encodable(retirement) }
            Keys.printKeys(retirement.keys)
        }
    }
}
