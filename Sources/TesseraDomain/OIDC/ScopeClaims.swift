import TesseraRecords
import TesseraStore

/// The standard claims the OpenID Connect scopes ask for (OpenID Connect Core §5.4), and
/// what a request's scope asks of a service's attributes.
public enum ScopeClaims {
    public static let claims: [String: Set<String>] = [
        "profile": [
            "name", "family_name", "given_name", "middle_name", "nickname", "preferred_username", "profile", "picture", "website",
            "gender", "birthdate", "zoneinfo", "locale", "updated_at",
        ],
        "email": ["email", "email_verified"],
        "address": ["address"],
        "phone": ["phone_number", "phone_number_verified"],
    ]

    /// The scopes that ask for claims.
    public static var scopes: [String] { claims.keys.sorted() }

    /// The scope that asks for the `groups` claim: the names of the user's groups (SCIM
    /// `Groups`), in the ID token, at userinfo and in introspection. It is no attribute the
    /// user confirms; the tenant's directory decides it.
    public static let groups = "groups"

    /// The scopes of users' logins, which no machine client's scopes may take.
    public static var userScopes: [String] { ["openid", "offline_access"] + scopes + [groups] }

    /// Whether a granted scope asks for the `groups` claim.
    public static func asksForGroups(_ scope: String) -> Bool { scope.split(separator: " ").contains { $0 == groups } }

    static let standard: Set<String> = claims.values.reduce(into: []) { $0.formUnion($1) }

    /// The attributes a request asks the user to confirm. A scope without claim scopes
    /// asks for the service's attributes as registered (Tessera's behaviour before
    /// scopes); with `profile`, `email`, `address` or `phone` a standard claim is asked for
    /// only when its scope is, while the service's own attributes (not standard claims)
    /// are always asked for. Never more than the service registered.
    public static func requestedAttributes(of service: ServiceRecord, scope: String) -> [String] {
        let scopes = Set(scope.split(separator: " ").map(String.init))
        let asked = scopes.reduce(into: Set<String>()) { $0.formUnion(claims[$1] ?? []) }
        guard !scopes.isDisjoint(with: claims.keys) else { return service.attributes }
        return service.attributes.filter { !standard.contains($0) || asked.contains($0) }
    }
}
