/// The Mustache templates of the console and the account page. `{{name}}` is escaped
/// for HTML; `{{{name}}}` (raw) is used only for markup the server drew itself (QR codes,
/// charts, the rendered page inside the layout). Main forms and tables have stable ids.
enum ConsoleTemplates {
    static let all: [String: String] = [
        "layout": layout, "csrf": csrf, "field": field, "signin": signIn, "message": message, "dashboard": dashboard,
        "tenants": tenants, "tenant": tenant, "services": services, "service": service, "servicefields": serviceFields, "once": once, "users": users,
        "user": user, "invitation": invitation, "audit": audit, "signingkeys": signingKeys, "apikeys": apiKeys, "webhooks": webhooks, "account": account,
        "groups": groups,
    ]

    static let layout = """
        <!doctype html>
        <html lang="{{look.language}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
        <title>{{title}}{{#console}} · Tessera{{/console}}</title><link rel="stylesheet" href="/static/tessera.css">{{#look.stylesheetURL}}<link rel="stylesheet" href="{{look.stylesheetURL}}">{{/look.stylesheetURL}}<script src="/static/console.js" defer></script>{{#account}}<script src="/static/webauthn.js" defer></script>{{/account}}</head>
        <body class="{{#wide}}wide{{/wide}}"><a class="skip" href="#main">{{t.account.skip}}</a>
        {{>brandheader}}
        {{#console}}<header class="top"><nav aria-label="Console">
        <a href="/console" id="nav-dashboard">Dashboard</a><a href="/console/tenants" id="nav-tenants">Tenants</a>
        <a href="/console/audit" id="nav-audit">Audit log</a>{{#manage}}<a href="/console/keys" id="nav-keys">API keys</a><a href="/console/webhooks" id="nav-webhooks">Webhooks</a>{{/manage}}
        <span class="who">{{who}} ({{role}}{{#scope}}, {{scope}}{{/scope}})</span>
        <form method="post" action="/console/logout" class="inline" id="sign-out">{{>csrf}}<button class="quiet">Sign out</button></form>
        </nav></header>{{/console}}
        {{#account}}<header class="top"><nav aria-label="{{t.account.nav_home}}"><a href="{{home}}">{{t.account.nav_home}}</a><span class="who">{{who}}</span>
        <form method="post" action="{{home}}/logout" class="inline" id="sign-out">{{>csrf}}<button class="quiet">{{t.account.sign_out}}</button></form>
        </nav></header>{{/account}}
        <main id="main">
        {{#notice}}<p class="notice" role="status" id="notice">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert" id="error">{{error}}</p>{{/error}}
        {{{content}}}
        </main></body></html>
        """

    static let csrf = #"<input type="hidden" name="csrf" value="{{csrf}}">"#

    /// Beside a field: its error, if the last submission had one.
    static let field = #"{{#message}}<p class="field-error" id="{{name}}-error">{{message}}</p>{{/message}}"#

    static let signIn = """
        <h1>{{heading}}</h1>
        <p>{{text}}</p>
        <p><a class="button" id="sign-in" href="{{start}}">{{button}}</a></p>
        <p class="muted">{{hint}}</p>
        """

    static let message = """
        <h1>{{heading}}</h1><p>{{text}}</p>{{#link}}<p><a class="button" href="{{link}}">{{linkText}}</a></p>{{/link}}
        """

    static let dashboard = """
        <h1>Dashboard</h1>
        <p class="muted">Per tenant: users, devices, logins (blue) and failures (red) per hour over the last 24 hours, current lockouts and open CIBA requests.</p>
        <div class="cards" id="dashboard">
        {{#tenants}}<section class="card" id="tenant-{{name}}" aria-labelledby="card-{{name}}">
        <h2 id="card-{{name}}"><a href="/console/tenants/{{name}}">{{name}}</a></h2>
        <div class="chart">{{{chart}}}</div>
        <dl><dt>Users</dt><dd>{{users}}</dd><dt>Activations</dt><dd>{{activations}}</dd>
        <dt>Logins (24 h)</dt><dd class="logins">{{logins}}</dd><dt>Failures (24 h)</dt><dd class="failures">{{failures}}</dd>
        <dt>Locked devices</dt><dd class="locked">{{locked}}</dd><dt>Open CIBA requests</dt><dd>{{ciba}}</dd></dl>
        </section>{{/tenants}}
        {{^tenants}}<p>No tenants yet.</p>{{/tenants}}
        </div>
        """

    static let tenants = """
        <h1>Tenants</h1>
        <div class="table"><table id="tenants"><thead><tr><th scope="col">Name</th><th scope="col">Issuer</th></tr></thead><tbody>
        {{#tenants}}<tr><td><a href="/console/tenants/{{name}}">{{name}}</a></td><td><code>{{issuer}}</code></td></tr>{{/tenants}}
        </tbody></table></div>
        {{#global}}<h2>New tenant</h2>
        <form method="post" action="/console/tenants" class="stack" id="create-tenant">{{>csrf}}
        <div><label for="tenant-name">Name</label><input id="tenant-name" name="name" required maxlength="63" value="{{values.name}}"
        {{#errors.name}}aria-describedby="name-error" aria-invalid="true"{{/errors.name}}>{{#errors.name}}{{>field}}{{/errors.name}}</div>
        <button>Create tenant</button></form>{{/global}}
        """

    static let tenant = """
        <h1>Tenant {{name}}</h1>
        <p class="actions"><a class="button" href="/console/tenants/{{name}}/users" id="link-users">Users</a>
        <a class="button" href="/console/tenants/{{name}}/services" id="link-services">Services</a>
        <a class="button" href="/console/tenants/{{name}}/keys" id="link-signing-keys">Signing keys</a>
        <a class="button" href="/console/tenants/{{name}}/groups" id="link-groups">Groups</a>
        <a class="button quiet" href="/console/audit?tenant={{name}}">Audit log</a></p>
        <p>Issuer: <code>{{issuer}}</code></p>
        <h2>Settings</h2>
        <form method="post" action="/console/tenants/{{name}}" class="stack" id="tenant-settings">{{>csrf}}
        {{#settings}}<div><label for="{{name}}">{{label}}</label><input id="{{name}}" name="{{name}}" value="{{value}}" {{^manage}}disabled{{/manage}}
        {{#message}}aria-describedby="{{name}}-error" aria-invalid="true"{{/message}}>{{#message}}{{>field}}{{/message}}</div>{{/settings}}
        <div><label><input type="checkbox" name="invitations_by_email_only" value="true" id="invitations_by_email_only" {{#emailOnly}}checked{{/emailOnly}} {{^manage}}disabled{{/manage}} {{#emailOnlyMessage}}aria-describedby="invitations_by_email_only-error" aria-invalid="true"{{/emailOnlyMessage}}> Send invitations by e-mail only (no one sees their links)</label>{{#emailOnlyMessage}}<p class="field-error" id="invitations_by_email_only-error">{{emailOnlyMessage}}</p>{{/emailOnlyMessage}}</div>
        <div><label><input type="checkbox" name="invite_provisioned_users" value="true" id="invite_provisioned_users" {{#inviteProvisioned}}checked{{/inviteProvisioned}} {{^manage}}disabled{{/manage}} {{#inviteProvisionedMessage}}aria-describedby="invite_provisioned_users-error" aria-invalid="true"{{/inviteProvisionedMessage}}> E-mail an invitation to each user a directory creates (SCIM)</label>{{#inviteProvisionedMessage}}<p class="field-error" id="invite_provisioned_users-error">{{inviteProvisionedMessage}}</p>{{/inviteProvisionedMessage}}</div>
        <div><label><input type="checkbox" name="recovery_codes" value="true" id="recovery_codes" {{#recoveryCodes}}checked{{/recoveryCodes}} {{^manage}}disabled{{/manage}}> Users may make recovery codes (a new device after losing every one)</label></div>
        {{#manage}}<button>Save settings</button>{{/manage}}</form>
        <h2>Branding</h2>
        <p class="muted">How the tenant's login, account and e-mail pages look and what they call things. The logo is uploaded
        with <code>tessera admin tenant update {{name}} --logo FILE</code> (PNG or SVG, at most 256 KiB).</p>
        {{#logoURL}}<p><img id="tenant-logo" src="{{logoURL}}" alt="The tenant's logo" class="logo-preview"></p>{{/logoURL}}
        <form method="post" action="/console/tenants/{{name}}/branding" class="stack" id="tenant-branding">{{>csrf}}
        {{#branding}}<div><label for="{{name}}">{{label}}</label><input id="{{name}}" name="{{name}}" value="{{value}}" {{^manage}}disabled{{/manage}}
        {{#message}}aria-describedby="{{name}}-error" aria-invalid="true"{{/message}}>{{#message}}{{>field}}{{/message}}</div>{{/branding}}
        {{#manage}}<button>Save branding</button>{{/manage}}</form>
        {{#global}}<h2>Removal</h2>
        <form method="post" action="/console/tenants/{{name}}/delete" class="stack" id="delete-tenant" data-confirm="Delete this tenant with its services, users, devices and sessions?">{{>csrf}}
        <label><input type="checkbox" name="force" value="true" id="delete-tenant-force"> Also when it still has users (they, their devices and sessions go too)</label>
        <button class="danger">Delete tenant</button></form>{{/global}}
        """

    static let services = """
        <h1>Services of {{tenantName}}</h1>
        <div class="table"><table id="services"><thead><tr><th scope="col">Name</th><th scope="col">Client id</th><th scope="col">Type</th><th scope="col">Policy</th></tr></thead><tbody>
        {{#services}}<tr><td><a href="/console/tenants/{{tenantName}}/services/{{clientID}}">{{name}}</a></td><td><code>{{clientID}}</code></td>
        <td>{{kind}}</td><td>{{policy}}</td></tr>{{/services}}
        </tbody></table></div>
        {{#manage}}<h2>New service</h2>
        <form method="post" action="/console/tenants/{{tenantName}}/services" class="stack" id="create-service">{{>csrf}}
        {{>servicefields}}
        <div><label><input type="checkbox" name="public" value="true" id="service-public"> Public client (no secret, PKCE)</label></div>
        <button>Create service</button></form>{{/manage}}
        """

    /// The fields a service is created and edited with (read-only without `manage`).
    static let serviceFields = """
        <div><label for="service-name">Name</label><input id="service-name" name="name" required value="{{values.name}}" {{^manage}}disabled{{/manage}} {{#errors.name}}aria-describedby="name-error" aria-invalid="true"{{/errors.name}}>{{#errors.name}}{{>field}}{{/errors.name}}</div>
        <div><label for="service-redirect-uris">Redirect URIs (one per line)</label><textarea id="service-redirect-uris" name="redirect_uris" rows="3" {{^manage}}disabled{{/manage}} {{#errors.redirect_uris}}aria-describedby="redirect_uris-error" aria-invalid="true"{{/errors.redirect_uris}}>{{values.redirect_uris}}</textarea>{{#errors.redirect_uris}}{{>field}}{{/errors.redirect_uris}}</div>
        <div><label for="service-policy">Factor policy</label><input id="service-policy" name="policy" value="{{values.policy}}" placeholder="device+pin,device+biometric" {{^manage}}disabled{{/manage}} {{#errors.policy}}aria-describedby="policy-error" aria-invalid="true"{{/errors.policy}}>{{#errors.policy}}{{>field}}{{/errors.policy}}</div>
        <div><label for="service-attributes">Attributes (comma-separated)</label><input id="service-attributes" name="attributes" value="{{values.attributes}}" {{^manage}}disabled{{/manage}} {{#errors.attributes}}aria-describedby="attributes-error" aria-invalid="true"{{/errors.attributes}}>{{#errors.attributes}}{{>field}}{{/errors.attributes}}</div>
        <div><label for="service-backchannel-mode">CIBA token delivery</label><select id="service-backchannel-mode" name="backchannel_token_delivery_mode" {{^manage}}disabled{{/manage}} {{#errors.backchannel_token_delivery_mode}}aria-describedby="backchannel_token_delivery_mode-error" aria-invalid="true"{{/errors.backchannel_token_delivery_mode}}>
        {{#modes}}<option value="{{value}}" {{#selected}}selected{{/selected}}>{{label}}</option>{{/modes}}</select>{{#errors.backchannel_token_delivery_mode}}{{>field}}{{/errors.backchannel_token_delivery_mode}}</div>
        <div><label for="service-notification-endpoint">CIBA notification endpoint (ping mode)</label><input id="service-notification-endpoint" name="backchannel_client_notification_endpoint" value="{{values.backchannel_client_notification_endpoint}}" {{^manage}}disabled{{/manage}} {{#errors.backchannel_client_notification_endpoint}}aria-describedby="backchannel_client_notification_endpoint-error" aria-invalid="true"{{/errors.backchannel_client_notification_endpoint}}>{{#errors.backchannel_client_notification_endpoint}}{{>field}}{{/errors.backchannel_client_notification_endpoint}}</div>
        <div><label for="service-id-token-alg">ID token algorithm</label><select id="service-id-token-alg" name="id_token_signed_response_alg" {{^manage}}disabled{{/manage}} {{#errors.id_token_signed_response_alg}}aria-describedby="id_token_signed_response_alg-error" aria-invalid="true"{{/errors.id_token_signed_response_alg}}>
        {{#algorithms}}<option value="{{value}}" {{#selected}}selected{{/selected}}>{{value}}</option>{{/algorithms}}</select>{{#errors.id_token_signed_response_alg}}{{>field}}{{/errors.id_token_signed_response_alg}}</div>
        <div><label for="service-post-logout-uris">Post-logout redirect URIs (one per line)</label><textarea id="service-post-logout-uris" name="post_logout_redirect_uris" rows="2" {{^manage}}disabled{{/manage}} {{#errors.post_logout_redirect_uris}}aria-describedby="post_logout_redirect_uris-error" aria-invalid="true"{{/errors.post_logout_redirect_uris}}>{{values.post_logout_redirect_uris}}</textarea>{{#errors.post_logout_redirect_uris}}{{>field}}{{/errors.post_logout_redirect_uris}}</div>
        {{#switches}}<div><label><input type="checkbox" name="{{field}}" value="true" id="{{id}}" {{#checked}}checked{{/checked}} {{^manage}}disabled{{/manage}}> {{label}}</label></div>
        {{/switches}}
        <div><label for="service-backchannel-logout-uri">Back-channel logout URI</label><input id="service-backchannel-logout-uri" name="backchannel_logout_uri" value="{{values.backchannel_logout_uri}}" {{^manage}}disabled{{/manage}} {{#errors.backchannel_logout_uri}}aria-describedby="backchannel_logout_uri-error" aria-invalid="true"{{/errors.backchannel_logout_uri}}>{{#errors.backchannel_logout_uri}}{{>field}}{{/errors.backchannel_logout_uri}}</div>
        """

    static let service = """
        <h1>Service {{name}}</h1>
        <p>Client id: <code id="client-id">{{clientID}}</code> · {{kind}} · <a href="/console/tenants/{{tenantName}}/services">all services</a></p>
        {{#builtIn}}<p class="muted" id="built-in">The server's own sign-in service for the console or the account page: it is kept as it is.</p>{{/builtIn}}
        <form method="post" action="/console/tenants/{{tenantName}}/services/{{clientID}}" class="stack" id="edit-service">{{>csrf}}
        {{>servicefields}}
        <div><label for="service-session-lifetime">Session lifetime (s; empty: the tenant's)</label><input id="service-session-lifetime" name="session_lifetime" value="{{values.session_lifetime}}" inputmode="numeric" {{^manage}}disabled{{/manage}} {{#errors.session_lifetime}}aria-describedby="session_lifetime-error" aria-invalid="true"{{/errors.session_lifetime}}>{{#errors.session_lifetime}}{{>field}}{{/errors.session_lifetime}}</div>
        <div><label for="service-session-idle-lifetime">Session idle lifetime (s; empty: the tenant's)</label><input id="service-session-idle-lifetime" name="session_idle_lifetime" value="{{values.session_idle_lifetime}}" inputmode="numeric" {{^manage}}disabled{{/manage}} {{#errors.session_idle_lifetime}}aria-describedby="session_idle_lifetime-error" aria-invalid="true"{{/errors.session_idle_lifetime}}>{{#errors.session_idle_lifetime}}{{>field}}{{/errors.session_idle_lifetime}}</div>
        {{#manage}}<button id="save-service">Save service</button>{{/manage}}</form>
        {{#manage}}<h2>Secret and removal</h2><div class="actions">
        {{^public}}<form method="post" action="/console/tenants/{{tenantName}}/services/{{clientID}}/secret" class="inline" id="rotate-secret" data-confirm="The current secret stops working at once. Rotate?">{{>csrf}}<button>Rotate secret</button></form>{{/public}}
        <form method="post" action="/console/tenants/{{tenantName}}/services/{{clientID}}/delete" class="inline" id="delete-service" data-confirm="Delete this service and end its sessions?">{{>csrf}}<button class="danger">Delete service</button></form>
        </div>{{/manage}}
        """

    static let once = """
        <h1>{{heading}}</h1>
        <p>{{text}}</p>
        <p class="once"><label for="secret">{{label}}</label><code id="secret">{{value}}</code></p>
        {{#extra}}<p>{{extraLabel}}: <code id="extra">{{extra}}</code></p>{{/extra}}
        <p class="muted">It is shown this once: {{kept}}.</p>
        <p><a class="button" href="{{back}}" id="continue">Continue</a></p>
        """

    static let users = """
        <h1>Users of {{tenantName}}</h1>
        <form method="get" action="/console/tenants/{{tenantName}}/users" id="search-users" role="search">
        <label for="user-search">Search usernames</label><input id="user-search" name="q" value="{{query}}" maxlength="128" {{#errors.q}}aria-describedby="q-error" aria-invalid="true"{{/errors.q}}>
        {{#errors.q}}{{>field}}{{/errors.q}}<button>Search</button></form>
        <div class="table"><table id="users"><thead><tr><th scope="col">Username</th><th scope="col">Attributes</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead><tbody>
        {{#users}}<tr><td><a href="/console/tenants/{{tenantName}}/users/{{id}}">{{username}}</a></td><td>{{attributes}}</td><td>{{status}}</td><td>{{created}}</td></tr>{{/users}}
        </tbody></table></div>
        {{#next}}<p><a href="{{next}}" id="next-page">Next page</a></p>{{/next}}
        {{#manage}}<h2>New user</h2>
        <form method="post" action="/console/tenants/{{tenantName}}/users" class="stack" id="create-user">{{>csrf}}
        <div><label for="user-username">Username</label><input id="user-username" name="username" required value="{{values.username}}" {{#errors.username}}aria-describedby="username-error" aria-invalid="true"{{/errors.username}}>{{#errors.username}}{{>field}}{{/errors.username}}</div>
        <div><label for="user-attributes">Attributes (name=value, one per line)</label><textarea id="user-attributes" name="attributes" rows="3" {{#errors.attributes}}aria-describedby="attributes-error" aria-invalid="true"{{/errors.attributes}}>{{values.attributes}}</textarea>{{#errors.attributes}}{{>field}}{{/errors.attributes}}</div>
        <button>Create user</button></form>{{/manage}}
        """

    static let user = """
        <h1>User {{username}}</h1>
        <p>{{status}} · created {{created}} · <a href="/console/tenants/{{tenantName}}/users">all users</a></p>
        <div class="actions">
        {{#support}}<form method="post" action="/console/tenants/{{tenantName}}/users/{{id}}/invite" class="inline" id="invite-user">{{>csrf}}<button>Invite a device</button></form>{{/support}}
        {{#manage}}{{#disabled}}<form method="post" action="/console/tenants/{{tenantName}}/users/{{id}}/enable" class="inline" id="enable-user">{{>csrf}}<button>Enable</button></form>{{/disabled}}
        {{^disabled}}<form method="post" action="/console/tenants/{{tenantName}}/users/{{id}}/disable" class="inline" id="disable-user" data-confirm="Disable this user and end their sessions?">{{>csrf}}<button class="quiet">Disable</button></form>{{/disabled}}
        <form method="post" action="/console/tenants/{{tenantName}}/users/{{id}}/delete" class="inline" id="delete-user" data-confirm="Delete this user, their devices and sessions?">{{>csrf}}<button class="danger">Delete</button></form>{{/manage}}
        </div>
        <h2>Attributes</h2>
        <form method="post" action="/console/tenants/{{tenantName}}/users/{{id}}" class="stack" id="edit-user">{{>csrf}}
        <div><label for="user-attributes">Attributes (name=value, one per line)</label><textarea id="user-attributes" name="attributes" rows="4" {{^manage}}disabled{{/manage}} {{#errors.attributes}}aria-describedby="attributes-error" aria-invalid="true"{{/errors.attributes}}>{{attributes}}</textarea>{{#errors.attributes}}{{>field}}{{/errors.attributes}}</div>
        {{#manage}}<button>Save attributes</button>{{/manage}}</form>
        <h2>Devices</h2>
        <div class="table"><table id="activations"><thead><tr><th scope="col">Alias</th><th scope="col">Factors</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Actions</th></tr></thead><tbody>
        {{#activations}}<tr id="activation-{{id}}"><td>{{alias}}</td><td>{{factors}}</td><td class="state">{{state}}</td><td>{{created}}</td><td>{{lastUsed}}</td><td>
        {{#support}}{{#locked}}<form method="post" action="/console/tenants/{{tenantName}}/activations/{{id}}/unlock" class="inline unlock">{{>csrf}}<button>Unlock</button></form>{{/locked}}
        <form method="post" action="/console/tenants/{{tenantName}}/activations/{{id}}/revoke" class="inline revoke" data-confirm="Revoke this device? Its sessions end.">{{>csrf}}<button class="danger">Revoke</button></form>{{/support}}
        </td></tr>{{/activations}}
        </tbody></table></div>
        <h2>Security keys and passkeys</h2>
        <div class="table"><table id="security-keys"><thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Algorithm</th><th scope="col">Attestation</th><th scope="col">State</th><th scope="col">Added</th><th scope="col">Last used</th><th scope="col">Actions</th></tr></thead><tbody>
        {{#securityKeys}}<tr id="security-key-{{keyID}}"><td>{{name}}</td><td>{{kind}}</td><td>{{algorithm}}</td><td>{{attestation}}</td><td class="state">{{state}}</td><td>{{created}}</td><td>{{lastUsed}}</td><td>
        {{#support}}<form method="post" action="/console/tenants/{{tenantName}}/users/{{id}}/security-keys/{{keyID}}/remove" class="inline remove-security-key" data-confirm="Remove this security key? It signs in no more, and its sessions end.">{{>csrf}}<button class="danger">Remove</button></form>{{/support}}
        </td></tr>{{/securityKeys}}
        </tbody></table></div>
        <h2>Sessions</h2>
        <div class="table"><table id="sessions"><thead><tr><th scope="col">Service</th><th scope="col">Factors</th><th scope="col">Started</th><th scope="col">Ends</th><th scope="col">Actions</th></tr></thead><tbody>
        {{#sessions}}<tr><td>{{service}}</td><td>{{factors}}</td><td>{{created}}</td><td>{{expires}}</td><td>
        {{#support}}<form method="post" action="/console/tenants/{{tenantName}}/sessions/{{id}}/end" class="inline end-session">{{>csrf}}<button class="quiet">End</button></form>{{/support}}</td></tr>{{/sessions}}
        </tbody></table></div>
        <h2>History</h2>
        <div class="table"><table id="history"><thead><tr><th scope="col">When</th><th scope="col">Service</th><th scope="col">Purpose</th><th scope="col">Outcome</th><th scope="col">Factors</th></tr></thead><tbody>
        {{#history}}<tr><td>{{at}}</td><td>{{service}}</td><td>{{purpose}}</td><td>{{outcome}}</td><td>{{factors}}</td></tr>{{/history}}
        </tbody></table></div>
        {{#olderHistory}}<p><a href="{{olderHistory}}" id="older-history">Older entries</a></p>{{/olderHistory}}
        """

    static let invitation = """
        <h1>Invitation for {{username}}</h1>
        <p>Scan this code with the Tessera app on the new device (or open the link on it) before {{expires}}.</p>
        <div class="qr" id="invitation-qr">{{{qr}}}</div>
        <p class="once"><label for="invitation-url">Activation link</label><code id="invitation-url">{{url}}</code></p>
        <p class="muted">It is shown this once: {{kept}}.</p>
        <p><a class="button" href="{{back}}" id="continue">Back to the user</a></p>
        """

    static let audit = """
        <h1>Audit log</h1>
        <form method="get" action="/console/audit" id="audit-filter" class="stack">
        <div><label for="audit-tenant">Tenant</label><select id="audit-tenant" name="tenant">{{#all}}<option value="">All tenants</option>{{/all}}
        {{#tenants}}<option value="{{name}}" {{#selected}}selected{{/selected}}>{{name}}</option>{{/tenants}}</select></div>
        <div><label for="audit-action">Action starts with</label><input id="audit-action" name="action" value="{{action}}" maxlength="64"></div>
        <div><label for="audit-actor">Actor</label><input id="audit-actor" name="actor" value="{{actor}}" maxlength="200"></div>
        <div><label for="audit-since">Since (hours ago)</label><input id="audit-since" name="hours" value="{{hours}}" inputmode="numeric" {{#errors.hours}}aria-describedby="hours-error" aria-invalid="true"{{/errors.hours}}>{{#errors.hours}}{{>field}}{{/errors.hours}}</div>
        <button>Filter</button></form>
        <div class="table"><table id="audit"><thead><tr><th scope="col">When</th><th scope="col">Tenant</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Details</th><th scope="col">From</th></tr></thead><tbody>
        {{#entries}}<tr><td>{{at}}</td><td>{{tenant}}</td><td class="actor">{{actor}}</td><td class="action">{{action}}</td><td><code>{{target}}</code></td><td>{{details}}</td><td class="origin">{{address}}{{#userAgent}}<br><small>{{userAgent}}</small>{{/userAgent}}{{#requestID}}<br><small>request <code>{{requestID}}</code></small>{{/requestID}}</td></tr>{{/entries}}
        </tbody></table></div>
        """

    static let signingKeys = """
        <h1>Signing keys of {{tenantName}}</h1>
        <div class="table"><table id="signing-keys"><thead><tr><th scope="col">Key id</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead><tbody>
        {{#keys}}<tr><td><code>{{kid}}</code></td><td>{{state}}</td><td>{{created}}</td><td>{{#manage}}{{^active}}
        <form method="post" action="/console/tenants/{{tenantName}}/keys/{{kid}}/activate" class="inline activate-key">{{>csrf}}<button>Activate</button></form>
        <form method="post" action="/console/tenants/{{tenantName}}/keys/{{kid}}/retire" class="inline retire-key" data-confirm="Retire this key? Tokens it signed stop verifying.">{{>csrf}}<button class="danger">Retire</button></form>{{/active}}{{/manage}}</td></tr>{{/keys}}
        </tbody></table></div>
        {{#manage}}<form method="post" action="/console/tenants/{{tenantName}}/keys" class="stack" id="rotate-signing-key">{{>csrf}}
        <label><input type="checkbox" name="activate" value="true"> Activate at once (otherwise it is published first)</label>
        <button>Add a signing key</button></form>{{/manage}}
        """

    static let groups = """
        {{#group}}<h1>Group {{name}}</h1>
        <p>In <a href="/console/tenants/{{tenantName}}/groups">the groups of {{tenantName}}</a>. Id <code>{{id}}</code>{{#externalID}}, directory id <code>{{externalID}}</code>{{/externalID}}.</p>
        <div class="table"><table id="group-members"><thead><tr><th scope="col">Member</th><th scope="col">User id</th></tr></thead><tbody>
        {{#members}}<tr><td><a href="/console/tenants/{{tenantName}}/users/{{id}}">{{username}}</a></td><td><code>{{id}}</code></td></tr>{{/members}}
        </tbody></table></div>{{^members}}<p>No members.</p>{{/members}}{{/group}}
        {{^group}}<h1>Groups of {{tenantName}}</h1>
        <p>A directory provisions groups over SCIM; a service that asks for the scope <code>groups</code> gets their names as the <code>groups</code> claim.</p>
        <div class="table"><table id="groups"><thead><tr><th scope="col">Name</th><th scope="col">Members</th><th scope="col">Directory id</th></tr></thead><tbody>
        {{#groups}}<tr><td><a href="/console/tenants/{{tenantName}}/groups/{{id}}">{{name}}</a></td><td>{{memberCount}}</td><td>{{externalID}}</td></tr>{{/groups}}
        </tbody></table></div>{{^groups}}<p>No groups yet.</p>{{/groups}}{{/group}}
        """

    static let apiKeys = """
        <h1>Admin API keys</h1>
        <div class="table"><table id="api-keys"><thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Tenant</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead><tbody>
        {{#keys}}<tr><td>{{name}}</td><td>{{role}}</td><td>{{tenant}}</td><td>{{created}}</td><td>
        <form method="post" action="/console/keys/{{id}}/revoke" class="inline revoke-key" data-confirm="Revoke this key at once?">{{>csrf}}<button class="danger">Revoke</button></form></td></tr>{{/keys}}
        </tbody></table></div>
        <h2>New key</h2>
        <form method="post" action="/console/keys" class="stack" id="create-api-key">{{>csrf}}
        <div><label for="key-name">Name</label><input id="key-name" name="name" required maxlength="128" value="{{values.name}}" {{#errors.name}}aria-describedby="name-error" aria-invalid="true"{{/errors.name}}>{{#errors.name}}{{>field}}{{/errors.name}}</div>
        <div><label for="key-role">Role</label><select id="key-role" name="role"><option value="admin">admin</option><option value="helpdesk">helpdesk</option><option value="auditor">auditor</option></select></div>
        <div><label for="key-tenant">Tenant</label><select id="key-tenant" name="tenant">{{#all}}<option value="">Every tenant</option>{{/all}}{{#tenants}}<option value="{{name}}">{{name}}</option>{{/tenants}}</select>{{#errors.tenant}}{{>field}}{{/errors.tenant}}</div>
        <button>Create key</button></form>
        """

    static let webhooks = """
        <h1>Webhooks</h1>
        <p>Each hook gets the events it names, signed as the Standard Webhooks specification says, in order and at least once. A hook whose deliveries keep failing past the maximum age is disabled; enabling it sends what it missed.</p>
        <div class="table"><table id="webhooks"><thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Tenant</th><th scope="col">State</th><th scope="col">Waiting</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead><tbody>
        {{#hooks}}<tr id="webhook-{{id}}"><td><code>{{url}}</code></td><td>{{events}}</td><td>{{tenant}}</td><td class="state">{{state}}{{#reason}}<br><small>{{reason}}</small>{{/reason}}</td><td class="waiting">{{waiting}}</td><td>{{created}}</td><td>
        <form method="post" action="/console/webhooks/{{id}}/test" class="inline test-webhook">{{>csrf}}<button>Send a test</button></form>
        {{#disabled}}<form method="post" action="/console/webhooks/{{id}}/enable" class="inline enable-webhook">{{>csrf}}<button>Enable</button></form>{{/disabled}}
        <form method="post" action="/console/webhooks/{{id}}/remove" class="inline remove-webhook" data-confirm="Remove this webhook and what waits for it?">{{>csrf}}<button class="danger">Remove</button></form></td></tr>{{/hooks}}
        </tbody></table></div>
        <h2>New webhook</h2>
        <form method="post" action="/console/webhooks" class="stack" id="create-webhook">{{>csrf}}
        <div><label for="webhook-url">URL</label><input id="webhook-url" name="url" type="url" required maxlength="2048" value="{{values.url}}" {{#errors.url}}aria-describedby="url-error" aria-invalid="true"{{/errors.url}}>{{#errors.url}}{{>field}}{{/errors.url}}</div>
        <div><label for="webhook-events">Events</label><input id="webhook-events" name="events" required maxlength="2000" value="{{values.events}}" placeholder="audit.*, login.failed, login.locked" aria-describedby="events-error events-help"><small id="events-help">audit.ACTION or audit.*, login.succeeded, login.failed, login.locked or login.*, ciba.answered, session.ended, or * for all; separated by commas</small>{{#errors.events}}{{>field}}{{/errors.events}}</div>
        <div><label for="webhook-tenant">Tenant</label><select id="webhook-tenant" name="tenant">{{#all}}<option value="">Every tenant</option>{{/all}}{{#tenants}}<option value="{{name}}">{{name}}</option>{{/tenants}}</select>{{#errors.tenant}}{{>field}}{{/errors.tenant}}</div>
        <button>Add webhook</button></form>
        """

    static let account = """
        <h1>{{t.account.title}}</h1>
        <p>{{{signedInAs}}}</p>
        <h2>{{t.account.devices}}</h2>
        <div class="table"><table id="devices"><thead><tr><th scope="col">{{t.account.col_name}}</th><th scope="col">{{t.account.col_factors}}</th><th scope="col">{{t.account.col_added}}</th><th scope="col">{{t.account.col_last_used}}</th><th scope="col">{{t.account.col_actions}}</th></tr></thead><tbody>
        {{#devices}}<tr id="device-{{id}}"><td>{{alias}}{{#current}} <strong>{{t.account.this_sign_in}}</strong>{{/current}}</td><td>{{factors}}</td><td>{{created}}</td><td>{{lastUsed}}</td><td>
        {{#removable}}<form method="post" action="{{home}}/devices/{{id}}/remove" class="inline remove-device" data-confirm="{{t.account.remove_device_confirm}}">{{>csrf}}<button class="danger">{{t.account.remove}}</button></form>{{/removable}}</td></tr>{{/devices}}
        </tbody></table></div>
        <h2>{{t.account.keys}}</h2>
        <div class="table"><table id="security-keys"><thead><tr><th scope="col">{{t.account.col_name}}</th><th scope="col">{{t.account.col_kind}}</th><th scope="col">{{t.account.col_added}}</th><th scope="col">{{t.account.col_last_used}}</th><th scope="col">{{t.account.col_actions}}</th></tr></thead><tbody>
        {{#securityKeys}}<tr id="security-key-{{id}}"><td>{{name}}{{#suspicious}} <strong>{{t.account.key_blocked}}</strong>{{/suspicious}}</td><td>{{kind}}</td><td>{{created}}</td><td>{{lastUsed}}</td><td>
        <form method="post" action="{{home}}/security-keys/{{id}}/remove" class="inline remove-security-key" data-confirm="{{t.account.remove_key_confirm}}">{{>csrf}}<button class="danger">{{t.account.remove}}</button></form></td></tr>{{/securityKeys}}
        </tbody></table></div>
        <section id="passkey-register" data-options-url="{{home}}/passkeys/options" data-register-url="{{home}}/passkeys" data-csrf="{{csrf}}" data-done="{{home}}?done=passkey"
                 data-follow="{{t.passkey.follow}}" data-created="{{t.passkey.created}}" data-not-created="{{t.passkey.not_created}}" hidden>
        <label for="passkey-name">{{t.account.passkey_name}}</label><input id="passkey-name" maxlength="64">
        <p><button type="button" id="passkey-register-button">{{t.account.add_passkey}}</button></p>
        <p class="status" id="passkey-register-status" role="status" hidden></p></section>
        <h2>{{t.account.sessions}}</h2>
        <div class="table"><table id="sessions"><thead><tr><th scope="col">{{t.account.col_service}}</th><th scope="col">{{t.account.col_started}}</th><th scope="col">{{t.account.col_ends}}</th><th scope="col">{{t.account.col_actions}}</th></tr></thead><tbody>
        {{#sessions}}<tr><td>{{service}}</td><td>{{created}}</td><td>{{expires}}</td><td>
        <form method="post" action="{{home}}/sessions/{{id}}/end" class="inline end-session">{{>csrf}}<button class="quiet">{{t.account.end}}</button></form></td></tr>{{/sessions}}
        </tbody></table></div>
        {{#recovery}}<h2>{{t.account.recovery}}</h2>
        {{#fresh}}<section id="recovery-codes"><p><strong>{{t.account.recovery_fresh_title}}</strong> {{t.account.recovery_fresh}}</p>
        <ol class="codes">{{#codes}}<li><code>{{.}}</code></li>{{/codes}}</ol></section>{{/fresh}}
        {{^fresh}}<p id="recovery-left">{{left}}</p>{{/fresh}}
        <form method="post" action="{{home}}/recovery-codes" class="inline" id="make-recovery-codes" data-confirm="{{t.account.recovery_confirm}}">{{>csrf}}<button>{{t.account.recovery_make}}</button></form>{{/recovery}}
        <h2>{{t.account.sign_ins}}</h2>
        <div class="table"><table id="sign-ins"><thead><tr><th scope="col">{{t.account.col_when}}</th><th scope="col">{{t.account.col_service}}</th><th scope="col">{{t.account.col_what}}</th><th scope="col">{{t.account.col_outcome}}</th></tr></thead><tbody>
        {{#signIns}}<tr><td>{{at}}</td><td>{{service}}</td><td>{{purpose}}</td><td>{{outcome}}</td></tr>{{/signIns}}
        </tbody></table></div>
        """
}
