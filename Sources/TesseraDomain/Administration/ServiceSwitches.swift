import TesseraAdminAPI
import TesseraRecords

/// A service's on/off setting, whole: its field in the admin API (`openapi.yaml`), its
/// column in the record, its value on a new service, and how the console's form shows it.
/// Creating, changing and showing a service, and the console's service form, all go
/// through `ServiceSwitch.all`: a new switch is a row here (with its spec field, record
/// column, migration and the rule that reads it).
public struct ServiceSwitch: Sendable {
    /// The admin API's field, which is also the console form's field.
    public let field: String
    /// On the console's form: the checkbox's id and label; nil: not on the form.
    public let console: (id: String, label: String)?
    /// A new service's value when the request does not say.
    public let standard: Bool
    let record: any WritableKeyPath<ServiceRecord, Bool> & Sendable
    package let shown: any WritableKeyPath<Components.Schemas.Service, Bool> & Sendable
    package let created: any WritableKeyPath<Components.Schemas.CreateService, Bool?> & Sendable
    package let changed: any WritableKeyPath<ServiceChanges, Bool?> & Sendable

    /// Every switch, in the order the console's form shows them.
    public static let all: [ServiceSwitch] = [
        ServiceSwitch(
            field: "number_matching",
            console: ("service-number-matching", "Number matching: the login page shows a number the user picks on the device"),
            standard: true, record: \.numberMatching, shown: \.numberMatching, created: \.numberMatching, changed: \.numberMatching),
        ServiceSwitch(
            field: "require_pushed_authorization_requests",
            console: ("service-require-par", "Authorization requests must be pushed first (PAR)"), standard: false,
            record: \.requirePushedAuthorizationRequests, shown: \.requirePushedAuthorizationRequests,
            created: \.requirePushedAuthorizationRequests, changed: \.requirePushedAuthorizationRequests),
        ServiceSwitch(
            field: "dpop_bound_access_tokens",
            console: ("service-dpop-bound", "Tokens are always DPoP-bound (the service must send DPoP proofs)"), standard: false,
            record: \.dpopBound, shown: \.dpopBoundAccessTokens, created: \.dpopBoundAccessTokens, changed: \.dpopBoundAccessTokens),
        ServiceSwitch(
            field: "app_identity_token", console: nil, standard: false, record: \.appIdentityToken, shown: \.appIdentityToken,
            created: \.appIdentityToken, changed: \.appIdentityToken),
        ServiceSwitch(
            field: "gematik_profile", console: nil, standard: false, record: \.gematikProfile, shown: \.gematikProfile,
            created: \.gematikProfile, changed: \.gematikProfile),
    ]
}
