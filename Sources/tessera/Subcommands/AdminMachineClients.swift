import ArgumentParser
import Foundation
import TesseraAdminAPI
import TesseraCore

/// The machine-client settings of `admin service create` and `update`: grant types, how the
/// service authenticates, its keys, and its client-credentials tokens' scopes, audience and
/// lifetime.
struct MachineClientOptions: ParsableArguments {
    @Option(help: "The grants it may use, comma separated: authorization_code, refresh_token, client_credentials (default: the first two).")
    var grantTypes: String?
    @Option(help: "How it authenticates: client_secret_basic, client_secret_post, private_key_jwt (no secret; give --jwks-file or --jwks-uri) or none.")
    var tokenEndpointAuthMethod: String?
    @Option(help: "The scopes its client-credentials tokens may carry, comma or space separated (update: '' removes them).")
    var scopes: String?
    @Option(help: "The aud of its client-credentials tokens (default: the issuer; update: '' removes it).")
    var audience: String?
    @Option(help: "How long its access tokens live, in seconds (60-3600; update: 'tenant' for the tenant's).")
    var accessTokenLifetime: String?
    @Option(help: "private_key_jwt: a file holding its public keys as a JWK Set.")
    var jwksFile: String?
    @Option(help: "private_key_jwt: where its JWK Set is fetched (https).")
    var jwksUri: String?

    var grantTypeList: [Components.Schemas.GrantType]? {
        get throws {
            try grantTypes.map { text in
                try Self.words(text).map { try documented($0, option: "--grant-types") }
            }
        }
    }

    var scopeList: [String]? { scopes.map(Self.words) }

    static func words(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    }

    /// The JWK Set in `--jwks-file`, as the body's type for it.
    func keySet<Set: Decodable>(_ type: Set.Type) throws -> Set? {
        guard let jwksFile else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: jwksFile))
        } catch {
            throw ValidationError("--jwks-file: \(jwksFile) cannot be read")
        }
        do {
            return try JSONDecoder().decode(Set.self, from: data)
        } catch {
            throw ValidationError("--jwks-file: \(jwksFile) is not a JWK Set ({\"keys\": [...]})")
        }
    }

    /// Sets the new service's fields.
    func apply(to body: inout Components.Schemas.CreateService) throws {
        body.grantTypes = try grantTypeList
        body.tokenEndpointAuthMethod = try tokenEndpointAuthMethod.map { try documented($0, option: "--token-endpoint-auth-method") }
        body.scopes = scopeList
        body.audience = audience
        if let accessTokenLifetime {
            guard let seconds = Int(accessTokenLifetime) else { throw ValidationError("--access-token-lifetime takes seconds") }
            body.accessTokenLifetime = seconds
        }
        body.jwks = try keySet(Components.Schemas.CreateService.JwksPayload.self)
        body.jwksUri = jwksUri
    }

    /// Names the changed fields; '' and 'tenant' remove what they may.
    func apply(to body: inout ServiceChanges) throws {
        body.grantTypes = try grantTypeList
        body.tokenEndpointAuthMethod = try tokenEndpointAuthMethod.map { try documented($0, option: "--token-endpoint-auth-method") }
        if let scopes { body.set(\.scopes, .scopes, scopes.isEmpty ? .null : .value(Self.words(scopes))) }
        if let audience { body.set(\.audience, .audience, audience.isEmpty ? .null : .value(audience)) }
        if let accessTokenLifetime {
            body.set(\.accessTokenLifetime, .accessTokenLifetime, try secondsOr("tenant", accessTokenLifetime, option: "--access-token-lifetime"))
        }
        body.jwks = try keySet(Components.Schemas.ServiceFields.JwksPayload.self)
        body.jwksUri = jwksUri
    }
}
