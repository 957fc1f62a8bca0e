/// The view models of the console's and the account page's templates (`ConsoleTemplates`):
/// one type per page, its properties named as the template reads them. A page template
/// is rendered inside its layout's model (`WebPages.render`), so `{{csrf}}`, `{{manage}}`
/// and the like resolve from the layout where the page has no value of its own (a nil
/// optional falls through to it too).

/// What the frame of a console page and every form in it read: who is signed in, what
/// the role may do, the CSRF token, and what the last form did.
struct ConsoleLayout {
    let console = true
    let wide = true
    let who: String
    let role: String
    let scope: String?
    let csrf: String
    let manage: Bool
    let support: Bool
    let notice: String?
    /// The operators' tenant's look, in the operator's language.
    let look: Look
    /// The look's words with the page's values (`name`, …) for their placeholders.
    /// Stored: the templates read stored properties only.
    let t: Words
}

/// The account page's frame.
struct AccountLayout {
    let account = true
    let wide = true
    let who: String
    let home: String
    let csrf: String
    let notice: String?
    /// The tenant's look in the user's language.
    let look: Look
    let t: Words
}

/// The frame of a page shown before anyone signed in.
struct PlainLayout {
    var look = Look.plain
    var t = Look.plain.words
}

/// The words a refused form puts beside one field (`{{#errors.name}}{{>field}}{{/errors.name}}`).
struct FieldProblem {
    let name: String
    let message: String
}

/// One option of a select: `selected` marks the current choice.
struct Choice {
    let value: String
    let label: String
    let selected: Bool
}

enum ConsoleViews {
    struct SignIn {
        let heading: String
        let text: String
        let start: String
        let button: String
        let hint: String
    }

    struct Message {
        let heading: String
        let text: String
        let link: String?
        let linkText: String?
    }

    /// A value shown this once (a client secret, an admin API key).
    struct Once {
        let heading: String
        let text: String
        let label: String
        let value: String
        var extraLabel: String? = nil
        var extra: String? = nil
        let back: String
        /// "It is shown this once", and what the server keeps of it.
        let shownOnce: String
    }

    struct Dashboard {
        struct Card {
            let name: String
            /// The counts, written as the page's language writes numbers.
            let users: String
            let activations: String
            let logins: String
            let failures: String
            let locked: String
            let ciba: String
            /// SVG drawn by `WebPages.chart`.
            let chart: String
        }
        let tenants: [Card]
    }

    struct Tenants {
        struct Row {
            let name: String
            let issuer: String
        }
        let tenants: [Row]
        let global: Bool
        /// The form sent back, by field name.
        let values: [String: String]
    }

    struct Tenant {
        struct Setting {
            let name: String
            let label: String
            let value: String
            let message: String?
        }
        let name: String
        let issuer: String
        let settings: [Setting]
        /// The branding form's fields, and where the logo is (set with the API or the command line).
        let branding: [Setting]
        let logoURL: String?
        let global: Bool
        /// Invitations go by e-mail only.
        let emailOnly: Bool
        let emailOnlyMessage: String?
        let inviteProvisioned: Bool
        let inviteProvisionedMessage: String?
        let recoveryCodes: Bool
    }

    /// A service's on/off setting as a checkbox (`ServiceSwitch.all`).
    struct Switch {
        let field: String
        let id: String
        let label: String
        let checked: Bool
    }

    struct Services {
        struct Row {
            let name: String
            let clientID: String
            let kind: String
            let policy: String
        }
        let tenantName: String
        let services: [Row]
        let values: [String: String]
        let switches: [Switch]
        let modes: [Choice]
        let algorithms: [Choice]
    }

    struct Service {
        let tenantName: String
        let name: String
        let clientID: String
        let `public`: Bool
        let kind: String
        let values: [String: String]
        let switches: [Switch]
        let modes: [Choice]
        let algorithms: [Choice]
        /// The server's own sign-in service: shown, never edited (`manage` is false for it
        /// whatever the role; nil leaves the role's).
        let builtIn: Bool
        let manage: Bool?
    }

    struct Users {
        struct Row {
            let id: String
            let username: String
            let attributes: String
            let status: String
            let created: String
        }
        let tenantName: String
        let query: String
        let values: [String: String]
        let users: [Row]
        let next: String?
    }

    struct User {
        struct Activation {
            let id: String
            let alias: String
            let factors: String
            let state: String
            let locked: Bool
            let created: String
            let lastUsed: String
        }
        struct SecurityKey {
            /// keyID, not id: inside the section, `{{id}}` is still the user's.
            let keyID: String
            let name: String
            let algorithm: String
            let kind: String
            let attestation: String
            let state: String
            let created: String
            let lastUsed: String
        }
        struct Session {
            let id: String
            let service: String
            let factors: String
            let created: String
            let expires: String
        }
        struct HistoryEntry {
            let at: String
            let service: String
            let purpose: String
            let outcome: String
            let factors: String
        }
        let tenantName: String
        let id: String
        let username: String
        let status: String
        let disabled: Bool
        let created: String
        let attributes: String
        let activations: [Activation]
        let securityKeys: [SecurityKey]
        let sessions: [Session]
        let history: [HistoryEntry]
        let olderHistory: String?
    }

    struct Invitation {
        let url: String
        /// SVG drawn by `QRCode`.
        let qr: String
        let back: String
        let shownOnce: String
    }

    struct Audit {
        struct Entry {
            let at: String
            let tenant: String
            let actor: String
            let action: String
            let target: String
            let details: String
            /// Where the change came from: address, user agent, the request's X-Request-Id.
            let address: String
            let userAgent: String?
            let requestID: String?
        }
        struct TenantChoice {
            let name: String
            let selected: Bool
        }
        let tenants: [TenantChoice]
        let all: Bool
        let action: String
        let actor: String
        let hours: String
        let entries: [Entry]
    }

    struct SigningKeys {
        struct Key {
            let kid: String
            let active: Bool
            let state: String
            let created: String
        }
        let tenantName: String
        let keys: [Key]
    }

    struct Groups {
        struct Group {
            let id: String
            let name: String
            let memberCount: Int
            let externalID: String
        }
        struct Member {
            let id: String
            let username: String
        }
        let tenantName: String
        let groups: [Group]
        /// The group opened, with its members.
        let group: Group?
        let members: [Member]
    }

    struct APIKeys {
        struct Key {
            let id: String
            let name: String
            let role: String
            let tenant: String
            let created: String
        }
        struct TenantName {
            let name: String
        }
        let keys: [Key]
        let tenants: [TenantName]
        let all: Bool
        let values: [String: String]
    }

    struct Webhooks {
        struct Hook {
            let id: String
            let url: String
            let events: String
            let tenant: String
            let state: String
            let reason: String?
            let disabled: Bool
            let waiting: Int
            let created: String
        }
        struct TenantName {
            let name: String
        }
        let hooks: [Hook]
        let tenants: [TenantName]
        let all: Bool
        let values: [String: String]
    }

    struct Account {
        struct Device {
            let id: String
            let alias: String
            let factors: String
            let created: String
            let lastUsed: String
            let current: Bool
            let removable: Bool
        }
        struct SecurityKey {
            let id: String
            let name: String
            let kind: String
            let created: String
            let lastUsed: String
            let suspicious: Bool
        }
        struct Session {
            let id: String
            let service: String
            let created: String
            let expires: String
        }
        struct SignIn {
            let at: String
            let service: String
            let purpose: String
            let outcome: String
        }
        /// HTML: "Signed in as … at …", the username emphasized (`Words.marked`).
        let signedInAs: String
        let devices: [Device]
        let securityKeys: [SecurityKey]
        let sessions: [Session]
        let signIns: [SignIn]
        /// The tenant offers recovery codes: how many of the user's are unused.
        let recovery: Recovery?
        struct Recovery {
            /// The sentence saying how many are unused.
            let left: String
            /// Just made: shown this once.
            let codes: [String]
            let fresh: Bool
        }
    }
}
