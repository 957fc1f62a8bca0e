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
        {{#console}}<header class="top"><nav aria-label="{{t.console.nav_label}}">
        <a href="/console" id="nav-dashboard">{{t.console.nav.dashboard}}</a><a href="/console/tenants" id="nav-tenants">{{t.console.nav.tenants}}</a>
        <a href="/console/audit" id="nav-audit">{{t.console.nav.audit}}</a>{{#manage}}<a href="/console/keys" id="nav-keys">{{t.console.nav.keys}}</a><a href="/console/webhooks" id="nav-webhooks">{{t.console.nav.webhooks}}</a>{{/manage}}
        <span class="who">{{who}} ({{role}}{{#scope}}, {{scope}}{{/scope}})</span>
        <form method="post" action="/console/logout" class="inline" id="sign-out">{{>csrf}}<button class="quiet">{{t.account.sign_out}}</button></form>
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
        <h1>{{t.console.nav.dashboard}}</h1>
        <p class="muted">{{t.console.dashboard.intro}}</p>
        <div class="cards" id="dashboard">
        {{#tenants}}<section class="card" id="tenant-{{name}}" aria-labelledby="card-{{name}}">
        <h2 id="card-{{name}}"><a href="/console/tenants/{{name}}">{{name}}</a></h2>
        <div class="chart">{{{chart}}}</div>
        <dl><dt>{{t.console.dashboard.users}}</dt><dd>{{users}}</dd><dt>{{t.console.dashboard.activations}}</dt><dd>{{activations}}</dd>
        <dt>{{t.console.dashboard.logins}}</dt><dd class="logins">{{logins}}</dd><dt>{{t.console.dashboard.failures}}</dt><dd class="failures">{{failures}}</dd>
        <dt>{{t.console.dashboard.locked}}</dt><dd class="locked">{{locked}}</dd><dt>{{t.console.dashboard.ciba}}</dt><dd>{{ciba}}</dd></dl>
        </section>{{/tenants}}
        {{^tenants}}<p>{{t.console.dashboard.none}}</p>{{/tenants}}
        </div>
        """

    static let tenants = """
        <h1>{{t.console.nav.tenants}}</h1>
        <div class="table"><table id="tenants"><thead><tr><th scope="col">{{t.console.col.name}}</th><th scope="col">{{t.console.col.issuer}}</th></tr></thead><tbody>
        {{#tenants}}<tr><td><a href="/console/tenants/{{name}}">{{name}}</a></td><td><code>{{issuer}}</code></td></tr>{{/tenants}}
        </tbody></table></div>
        {{#global}}<h2>{{t.console.tenants.new}}</h2>
        <form method="post" action="/console/tenants" class="stack" id="create-tenant">{{>csrf}}
        <div><label for="tenant-name">{{t.console.col.name}}</label><input id="tenant-name" name="name" required maxlength="63" value="{{values.name}}"
        {{#errors.name}}aria-describedby="name-error" aria-invalid="true"{{/errors.name}}>{{#errors.name}}{{>field}}{{/errors.name}}</div>
        <button>{{t.console.tenants.create}}</button></form>{{/global}}
        """

    static let tenant = """
        <h1>{{t.console.tenant.title}}</h1>
        <p class="actions"><a class="button" href="/console/tenants/{{name}}/users" id="link-users">{{t.console.tenant.users}}</a>
        <a class="button" href="/console/tenants/{{name}}/services" id="link-services">{{t.console.tenant.services}}</a>
        <a class="button" href="/console/tenants/{{name}}/keys" id="link-signing-keys">{{t.console.tenant.signing_keys}}</a>
        <a class="button" href="/console/tenants/{{name}}/groups" id="link-groups">{{t.console.tenant.groups}}</a>
        <a class="button quiet" href="/console/audit?tenant={{name}}">{{t.console.nav.audit}}</a></p>
        <p>{{t.console.col.issuer}}: <code>{{issuer}}</code></p>
        <h2>{{t.console.tenant.settings}}</h2>
        <form method="post" action="/console/tenants/{{name}}" class="stack" id="tenant-settings">{{>csrf}}
        {{#settings}}<div><label for="{{name}}">{{label}}</label><input id="{{name}}" name="{{name}}" value="{{value}}" {{^manage}}disabled{{/manage}}
        {{#message}}aria-describedby="{{name}}-error" aria-invalid="true"{{/message}}>{{#message}}{{>field}}{{/message}}</div>{{/settings}}
        <div><label><input type="checkbox" name="invitations_by_email_only" value="true" id="invitations_by_email_only" {{#emailOnly}}checked{{/emailOnly}} {{^manage}}disabled{{/manage}} {{#emailOnlyMessage}}aria-describedby="invitations_by_email_only-error" aria-invalid="true"{{/emailOnlyMessage}}> {{t.console.tenant.email_only}}</label>{{#emailOnlyMessage}}<p class="field-error" id="invitations_by_email_only-error">{{emailOnlyMessage}}</p>{{/emailOnlyMessage}}</div>
        <div><label><input type="checkbox" name="invite_provisioned_users" value="true" id="invite_provisioned_users" {{#inviteProvisioned}}checked{{/inviteProvisioned}} {{^manage}}disabled{{/manage}} {{#inviteProvisionedMessage}}aria-describedby="invite_provisioned_users-error" aria-invalid="true"{{/inviteProvisionedMessage}}> {{t.console.tenant.invite_provisioned}}</label>{{#inviteProvisionedMessage}}<p class="field-error" id="invite_provisioned_users-error">{{inviteProvisionedMessage}}</p>{{/inviteProvisionedMessage}}</div>
        <div><label><input type="checkbox" name="recovery_codes" value="true" id="recovery_codes" {{#recoveryCodes}}checked{{/recoveryCodes}} {{^manage}}disabled{{/manage}}> {{t.console.tenant.recovery_codes}}</label></div>
        {{#manage}}<button>{{t.console.tenant.save}}</button>{{/manage}}</form>
        <h2>{{t.console.tenant.branding}}</h2>
        <p class="muted">{{t.console.tenant.branding_intro}}</p>
        {{#logoURL}}<p><img id="tenant-logo" src="{{logoURL}}" alt="{{t.console.tenant.logo_alt}}" class="logo-preview"></p>{{/logoURL}}
        {{#manage}}<form method="post" action="/console/tenants/{{name}}/branding/logo" enctype="multipart/form-data" class="stack" id="tenant-logo-upload">{{>csrf}}
        <div><label for="logo">{{t.console.tenant.logo}}</label><input type="file" id="logo" name="logo" accept="image/png,image/svg+xml" required
        {{#errors.logo}}aria-describedby="logo-error" aria-invalid="true"{{/errors.logo}}>{{#errors.logo}}{{>field}}{{/errors.logo}}</div>
        <button>{{t.console.tenant.logo_upload}}</button></form>
        {{#logoURL}}<form method="post" action="/console/tenants/{{name}}/branding/logo/remove" class="inline" id="tenant-logo-remove" data-confirm="{{t.console.tenant.logo_remove_confirm}}">{{>csrf}}<button class="quiet">{{t.console.tenant.logo_remove}}</button></form>{{/logoURL}}{{/manage}}
        <form method="post" action="/console/tenants/{{name}}/branding" class="stack" id="tenant-branding">{{>csrf}}
        {{#branding}}<div><label for="{{name}}">{{label}}</label><input id="{{name}}" name="{{name}}" value="{{value}}" {{^manage}}disabled{{/manage}}
        {{#message}}aria-describedby="{{name}}-error" aria-invalid="true"{{/message}}>{{#message}}{{>field}}{{/message}}</div>{{/branding}}
        {{#manage}}<button>{{t.console.tenant.save_branding}}</button>{{/manage}}</form>
        {{#global}}<h2>{{t.console.tenant.removal}}</h2>
        <form method="post" action="/console/tenants/{{name}}/delete" class="stack" id="delete-tenant" data-confirm="{{t.console.tenant.delete_confirm}}">{{>csrf}}
        <label><input type="checkbox" name="force" value="true" id="delete-tenant-force"> {{t.console.tenant.delete_force}}</label>
        <button class="danger">{{t.console.tenant.delete}}</button></form>{{/global}}
        """

    static let services = """
        <h1>{{t.console.services.title}}</h1>
        <div class="table"><table id="services"><thead><tr><th scope="col">{{t.console.col.name}}</th><th scope="col">{{t.console.col.client_id}}</th><th scope="col">{{t.console.col.type}}</th><th scope="col">{{t.console.col.policy}}</th></tr></thead><tbody>
        {{#services}}<tr><td><a href="/console/tenants/{{tenantName}}/services/{{clientID}}">{{name}}</a></td><td><code>{{clientID}}</code></td>
        <td>{{kind}}</td><td>{{policy}}</td></tr>{{/services}}
        </tbody></table></div>
        {{#manage}}<h2>{{t.console.services.new}}</h2>
        <form method="post" action="/console/tenants/{{tenantName}}/services" class="stack" id="create-service">{{>csrf}}
        {{>servicefields}}
        <div><label><input type="checkbox" name="public" value="true" id="service-public"> {{t.console.services.public}}</label></div>
        <button>{{t.console.services.create}}</button></form>{{/manage}}
        """

    /// The fields a service is created and edited with (read-only without `manage`).
    static let serviceFields = """
        <div><label for="service-name">{{t.console.col.name}}</label><input id="service-name" name="name" required value="{{values.name}}" {{^manage}}disabled{{/manage}} {{#errors.name}}aria-describedby="name-error" aria-invalid="true"{{/errors.name}}>{{#errors.name}}{{>field}}{{/errors.name}}</div>
        <div><label for="service-redirect-uris">{{t.console.service.redirect_uris}}</label><textarea id="service-redirect-uris" name="redirect_uris" rows="3" {{^manage}}disabled{{/manage}} {{#errors.redirect_uris}}aria-describedby="redirect_uris-error" aria-invalid="true"{{/errors.redirect_uris}}>{{values.redirect_uris}}</textarea>{{#errors.redirect_uris}}{{>field}}{{/errors.redirect_uris}}</div>
        <div><label for="service-policy">{{t.console.service.policy}}</label><input id="service-policy" name="policy" value="{{values.policy}}" placeholder="device+pin,device+biometric" {{^manage}}disabled{{/manage}} {{#errors.policy}}aria-describedby="policy-error" aria-invalid="true"{{/errors.policy}}>{{#errors.policy}}{{>field}}{{/errors.policy}}</div>
        <div><label for="service-attributes">{{t.console.service.attributes}}</label><input id="service-attributes" name="attributes" value="{{values.attributes}}" {{^manage}}disabled{{/manage}} {{#errors.attributes}}aria-describedby="attributes-error" aria-invalid="true"{{/errors.attributes}}>{{#errors.attributes}}{{>field}}{{/errors.attributes}}</div>
        <div><label for="service-backchannel-mode">{{t.console.service.ciba_mode}}</label><select id="service-backchannel-mode" name="backchannel_token_delivery_mode" {{^manage}}disabled{{/manage}} {{#errors.backchannel_token_delivery_mode}}aria-describedby="backchannel_token_delivery_mode-error" aria-invalid="true"{{/errors.backchannel_token_delivery_mode}}>
        {{#modes}}<option value="{{value}}" {{#selected}}selected{{/selected}}>{{label}}</option>{{/modes}}</select>{{#errors.backchannel_token_delivery_mode}}{{>field}}{{/errors.backchannel_token_delivery_mode}}</div>
        <div><label for="service-notification-endpoint">{{t.console.service.notification_endpoint}}</label><input id="service-notification-endpoint" name="backchannel_client_notification_endpoint" value="{{values.backchannel_client_notification_endpoint}}" {{^manage}}disabled{{/manage}} {{#errors.backchannel_client_notification_endpoint}}aria-describedby="backchannel_client_notification_endpoint-error" aria-invalid="true"{{/errors.backchannel_client_notification_endpoint}}>{{#errors.backchannel_client_notification_endpoint}}{{>field}}{{/errors.backchannel_client_notification_endpoint}}</div>
        <div><label for="service-id-token-alg">{{t.console.service.id_token_alg}}</label><select id="service-id-token-alg" name="id_token_signed_response_alg" {{^manage}}disabled{{/manage}} {{#errors.id_token_signed_response_alg}}aria-describedby="id_token_signed_response_alg-error" aria-invalid="true"{{/errors.id_token_signed_response_alg}}>
        {{#algorithms}}<option value="{{value}}" {{#selected}}selected{{/selected}}>{{value}}</option>{{/algorithms}}</select>{{#errors.id_token_signed_response_alg}}{{>field}}{{/errors.id_token_signed_response_alg}}</div>
        <div><label for="service-post-logout-uris">{{t.console.service.post_logout_uris}}</label><textarea id="service-post-logout-uris" name="post_logout_redirect_uris" rows="2" {{^manage}}disabled{{/manage}} {{#errors.post_logout_redirect_uris}}aria-describedby="post_logout_redirect_uris-error" aria-invalid="true"{{/errors.post_logout_redirect_uris}}>{{values.post_logout_redirect_uris}}</textarea>{{#errors.post_logout_redirect_uris}}{{>field}}{{/errors.post_logout_redirect_uris}}</div>
        {{#switches}}<div><label><input type="checkbox" name="{{field}}" value="true" id="{{id}}" {{#checked}}checked{{/checked}} {{^manage}}disabled{{/manage}}> {{label}}</label></div>
        {{/switches}}
        <div><label for="service-backchannel-logout-uri">{{t.console.service.backchannel_logout_uri}}</label><input id="service-backchannel-logout-uri" name="backchannel_logout_uri" value="{{values.backchannel_logout_uri}}" {{^manage}}disabled{{/manage}} {{#errors.backchannel_logout_uri}}aria-describedby="backchannel_logout_uri-error" aria-invalid="true"{{/errors.backchannel_logout_uri}}>{{#errors.backchannel_logout_uri}}{{>field}}{{/errors.backchannel_logout_uri}}</div>
        """

    static let service = """
        <h1>{{t.console.service.title}}</h1>
        <p>{{t.console.col.client_id}}: <code id="client-id">{{clientID}}</code> · {{kind}} · <a href="/console/tenants/{{tenantName}}/services">{{t.console.service.all}}</a></p>
        {{#builtIn}}<p class="muted" id="built-in">{{t.console.service.built_in}}</p>{{/builtIn}}
        <form method="post" action="/console/tenants/{{tenantName}}/services/{{clientID}}" class="stack" id="edit-service">{{>csrf}}
        {{>servicefields}}
        <div><label for="service-session-lifetime">{{t.console.service.session_lifetime}}</label><input id="service-session-lifetime" name="session_lifetime" value="{{values.session_lifetime}}" inputmode="numeric" {{^manage}}disabled{{/manage}} {{#errors.session_lifetime}}aria-describedby="session_lifetime-error" aria-invalid="true"{{/errors.session_lifetime}}>{{#errors.session_lifetime}}{{>field}}{{/errors.session_lifetime}}</div>
        <div><label for="service-session-idle-lifetime">{{t.console.service.session_idle_lifetime}}</label><input id="service-session-idle-lifetime" name="session_idle_lifetime" value="{{values.session_idle_lifetime}}" inputmode="numeric" {{^manage}}disabled{{/manage}} {{#errors.session_idle_lifetime}}aria-describedby="session_idle_lifetime-error" aria-invalid="true"{{/errors.session_idle_lifetime}}>{{#errors.session_idle_lifetime}}{{>field}}{{/errors.session_idle_lifetime}}</div>
        {{#manage}}<button id="save-service">{{t.console.service.save}}</button>{{/manage}}</form>
        {{#manage}}<h2>{{t.console.service.secret_and_removal}}</h2><div class="actions">
        {{^public}}<form method="post" action="/console/tenants/{{tenantName}}/services/{{clientID}}/secret" class="inline" id="rotate-secret" data-confirm="{{t.console.service.rotate_confirm}}">{{>csrf}}<button>{{t.console.service.rotate}}</button></form>{{/public}}
        <form method="post" action="/console/tenants/{{tenantName}}/services/{{clientID}}/delete" class="inline" id="delete-service" data-confirm="{{t.console.service.delete_confirm}}">{{>csrf}}<button class="danger">{{t.console.service.delete}}</button></form>
        </div>{{/manage}}
        """

    static let once = """
        <h1>{{heading}}</h1>
        <p>{{text}}</p>
        <p class="once"><label for="secret">{{label}}</label><code id="secret">{{value}}</code></p>
        {{#extra}}<p>{{extraLabel}}: <code id="extra">{{extra}}</code></p>{{/extra}}
        <p class="muted">{{shownOnce}}</p>
        <p><a class="button" href="{{back}}" id="continue">{{t.console.once.continue}}</a></p>
        """

    static let users = """
        <h1>{{t.console.users.title}}</h1>
        <form method="get" action="/console/tenants/{{tenantName}}/users" id="search-users" role="search">
        <label for="user-search">{{t.console.users.search}}</label><input id="user-search" name="q" value="{{query}}" maxlength="128" {{#errors.q}}aria-describedby="q-error" aria-invalid="true"{{/errors.q}}>
        {{#errors.q}}{{>field}}{{/errors.q}}<button>{{t.console.users.search_button}}</button></form>
        <div class="table"><table id="users"><thead><tr><th scope="col">{{t.console.col.username}}</th><th scope="col">{{t.console.col.attributes}}</th><th scope="col">{{t.console.col.status}}</th><th scope="col">{{t.console.col.created}}</th></tr></thead><tbody>
        {{#users}}<tr><td><a href="/console/tenants/{{tenantName}}/users/{{id}}">{{username}}</a></td><td>{{attributes}}</td><td>{{status}}</td><td>{{created}}</td></tr>{{/users}}
        </tbody></table></div>
        {{#next}}<p><a href="{{next}}" id="next-page">{{t.console.users.next}}</a></p>{{/next}}
        {{#manage}}<h2>{{t.console.users.new}}</h2>
        <form method="post" action="/console/tenants/{{tenantName}}/users" class="stack" id="create-user">{{>csrf}}
        <div><label for="user-username">{{t.console.col.username}}</label><input id="user-username" name="username" required value="{{values.username}}" {{#errors.username}}aria-describedby="username-error" aria-invalid="true"{{/errors.username}}>{{#errors.username}}{{>field}}{{/errors.username}}</div>
        <div><label for="user-attributes">{{t.console.users.attributes}}</label><textarea id="user-attributes" name="attributes" rows="3" {{#errors.attributes}}aria-describedby="attributes-error" aria-invalid="true"{{/errors.attributes}}>{{values.attributes}}</textarea>{{#errors.attributes}}{{>field}}{{/errors.attributes}}</div>
        <button>{{t.console.users.create}}</button></form>{{/manage}}
        """

    static let user = """
        <h1>{{t.console.user.title}}</h1>
        <p>{{status}} · {{t.console.user.created}} · <a href="/console/tenants/{{tenantName}}/users">{{t.console.user.all}}</a></p>
        <div class="actions">
        {{#support}}<form method="post" action="/console/tenants/{{tenantName}}/users/{{id}}/invite" class="inline" id="invite-user">{{>csrf}}<button>{{t.console.user.invite}}</button></form>{{/support}}
        {{#manage}}{{#disabled}}<form method="post" action="/console/tenants/{{tenantName}}/users/{{id}}/enable" class="inline" id="enable-user">{{>csrf}}<button>{{t.console.enable}}</button></form>{{/disabled}}
        {{^disabled}}<form method="post" action="/console/tenants/{{tenantName}}/users/{{id}}/disable" class="inline" id="disable-user" data-confirm="{{t.console.user.disable_confirm}}">{{>csrf}}<button class="quiet">{{t.console.user.disable}}</button></form>{{/disabled}}
        <form method="post" action="/console/tenants/{{tenantName}}/users/{{id}}/delete" class="inline" id="delete-user" data-confirm="{{t.console.user.delete_confirm}}">{{>csrf}}<button class="danger">{{t.console.user.delete}}</button></form>{{/manage}}
        </div>
        <h2>{{t.console.user.attributes}}</h2>
        <form method="post" action="/console/tenants/{{tenantName}}/users/{{id}}" class="stack" id="edit-user">{{>csrf}}
        <div><label for="user-attributes">{{t.console.users.attributes}}</label><textarea id="user-attributes" name="attributes" rows="4" {{^manage}}disabled{{/manage}} {{#errors.attributes}}aria-describedby="attributes-error" aria-invalid="true"{{/errors.attributes}}>{{attributes}}</textarea>{{#errors.attributes}}{{>field}}{{/errors.attributes}}</div>
        {{#manage}}<button>{{t.console.user.save}}</button>{{/manage}}</form>
        <h2>{{t.console.user.devices}}</h2>
        <div class="table"><table id="activations"><thead><tr><th scope="col">{{t.console.col.alias}}</th><th scope="col">{{t.console.col.factors}}</th><th scope="col">{{t.console.col.status}}</th><th scope="col">{{t.console.col.created}}</th><th scope="col">{{t.console.col.last_used}}</th><th scope="col">{{t.console.col.actions}}</th></tr></thead><tbody>
        {{#activations}}<tr id="activation-{{id}}"><td>{{alias}}</td><td>{{factors}}</td><td class="state">{{state}}</td><td>{{created}}</td><td>{{lastUsed}}</td><td>
        {{#support}}{{#locked}}<form method="post" action="/console/tenants/{{tenantName}}/activations/{{id}}/unlock" class="inline unlock">{{>csrf}}<button>{{t.console.user.unlock}}</button></form>{{/locked}}
        <form method="post" action="/console/tenants/{{tenantName}}/activations/{{id}}/revoke" class="inline revoke" data-confirm="{{t.console.user.revoke_confirm}}">{{>csrf}}<button class="danger">{{t.console.revoke}}</button></form>{{/support}}
        </td></tr>{{/activations}}
        </tbody></table></div>
        <h2>{{t.console.user.keys}}</h2>
        <div class="table"><table id="security-keys"><thead><tr><th scope="col">{{t.console.col.name}}</th><th scope="col">{{t.console.col.kind}}</th><th scope="col">{{t.console.col.algorithm}}</th><th scope="col">{{t.console.col.attestation}}</th><th scope="col">{{t.console.col.state}}</th><th scope="col">{{t.console.col.added}}</th><th scope="col">{{t.console.col.last_used}}</th><th scope="col">{{t.console.col.actions}}</th></tr></thead><tbody>
        {{#securityKeys}}<tr id="security-key-{{keyID}}"><td>{{name}}</td><td>{{kind}}</td><td>{{algorithm}}</td><td>{{attestation}}</td><td class="state">{{state}}</td><td>{{created}}</td><td>{{lastUsed}}</td><td>
        {{#support}}<form method="post" action="/console/tenants/{{tenantName}}/users/{{id}}/security-keys/{{keyID}}/remove" class="inline remove-security-key" data-confirm="{{t.console.user.key_remove_confirm}}">{{>csrf}}<button class="danger">{{t.console.remove}}</button></form>{{/support}}
        </td></tr>{{/securityKeys}}
        </tbody></table></div>
        <h2>{{t.console.user.sessions}}</h2>
        <div class="table"><table id="sessions"><thead><tr><th scope="col">{{t.console.col.service}}</th><th scope="col">{{t.console.col.factors}}</th><th scope="col">{{t.console.col.started}}</th><th scope="col">{{t.console.col.ends}}</th><th scope="col">{{t.console.col.actions}}</th></tr></thead><tbody>
        {{#sessions}}<tr><td>{{service}}</td><td>{{factors}}</td><td>{{created}}</td><td>{{expires}}</td><td>
        {{#support}}<form method="post" action="/console/tenants/{{tenantName}}/sessions/{{id}}/end" class="inline end-session">{{>csrf}}<button class="quiet">{{t.console.user.end}}</button></form>{{/support}}</td></tr>{{/sessions}}
        </tbody></table></div>
        <h2>{{t.console.user.history}}</h2>
        <div class="table"><table id="history"><thead><tr><th scope="col">{{t.console.col.when}}</th><th scope="col">{{t.console.col.service}}</th><th scope="col">{{t.console.col.purpose}}</th><th scope="col">{{t.console.col.outcome}}</th><th scope="col">{{t.console.col.factors}}</th></tr></thead><tbody>
        {{#history}}<tr><td>{{at}}</td><td>{{service}}</td><td>{{purpose}}</td><td>{{outcome}}</td><td>{{factors}}</td></tr>{{/history}}
        </tbody></table></div>
        {{#olderHistory}}<p><a href="{{olderHistory}}" id="older-history">{{t.console.user.older}}</a></p>{{/olderHistory}}
        """

    static let invitation = """
        <h1>{{t.console.invitation.heading}}</h1>
        <p>{{t.console.invitation.text}}</p>
        <div class="qr" id="invitation-qr">{{{qr}}}</div>
        <p class="once"><label for="invitation-url">{{t.console.invitation.link}}</label><code id="invitation-url">{{url}}</code></p>
        <p class="muted">{{shownOnce}}</p>
        <p><a class="button" href="{{back}}" id="continue">{{t.console.invitation.back}}</a></p>
        """

    static let audit = """
        <h1>{{t.console.nav.audit}}</h1>
        <form method="get" action="/console/audit" id="audit-filter" class="stack">
        <div><label for="audit-tenant">{{t.console.col.tenant}}</label><select id="audit-tenant" name="tenant">{{#all}}<option value="">{{t.console.audit.all}}</option>{{/all}}
        {{#tenants}}<option value="{{name}}" {{#selected}}selected{{/selected}}>{{name}}</option>{{/tenants}}</select></div>
        <div><label for="audit-action">{{t.console.audit.action}}</label><input id="audit-action" name="action" value="{{action}}" maxlength="64"></div>
        <div><label for="audit-actor">{{t.console.col.actor}}</label><input id="audit-actor" name="actor" value="{{actor}}" maxlength="200"></div>
        <div><label for="audit-since">{{t.console.audit.since}}</label><input id="audit-since" name="hours" value="{{hours}}" inputmode="numeric" {{#errors.hours}}aria-describedby="hours-error" aria-invalid="true"{{/errors.hours}}>{{#errors.hours}}{{>field}}{{/errors.hours}}</div>
        <button>{{t.console.audit.filter}}</button></form>
        <div class="table"><table id="audit"><thead><tr><th scope="col">{{t.console.col.when}}</th><th scope="col">{{t.console.col.tenant}}</th><th scope="col">{{t.console.col.actor}}</th><th scope="col">{{t.console.col.action}}</th><th scope="col">{{t.console.col.target}}</th><th scope="col">{{t.console.col.details}}</th><th scope="col">{{t.console.col.from}}</th></tr></thead><tbody>
        {{#entries}}<tr><td>{{at}}</td><td>{{tenant}}</td><td class="actor">{{actor}}</td><td class="action">{{action}}</td><td><code>{{target}}</code></td><td>{{details}}</td><td class="origin">{{address}}{{#userAgent}}<br><small>{{userAgent}}</small>{{/userAgent}}{{#requestID}}<br><small>{{t.console.audit.request}} <code>{{requestID}}</code></small>{{/requestID}}</td></tr>{{/entries}}
        </tbody></table></div>
        """

    static let signingKeys = """
        <h1>{{t.console.keys.title}}</h1>
        <div class="table"><table id="signing-keys"><thead><tr><th scope="col">{{t.console.col.key_id}}</th><th scope="col">{{t.console.col.state}}</th><th scope="col">{{t.console.col.created}}</th><th scope="col">{{t.console.col.actions}}</th></tr></thead><tbody>
        {{#keys}}<tr><td><code>{{kid}}</code></td><td>{{state}}</td><td>{{created}}</td><td>{{#manage}}{{^active}}
        <form method="post" action="/console/tenants/{{tenantName}}/keys/{{kid}}/activate" class="inline activate-key">{{>csrf}}<button>{{t.console.keys.activate}}</button></form>
        <form method="post" action="/console/tenants/{{tenantName}}/keys/{{kid}}/retire" class="inline retire-key" data-confirm="{{t.console.keys.retire_confirm}}">{{>csrf}}<button class="danger">{{t.console.keys.retire}}</button></form>{{/active}}{{/manage}}</td></tr>{{/keys}}
        </tbody></table></div>
        {{#manage}}<form method="post" action="/console/tenants/{{tenantName}}/keys" class="stack" id="rotate-signing-key">{{>csrf}}
        <label><input type="checkbox" name="activate" value="true"> {{t.console.keys.activate_now}}</label>
        <button>{{t.console.keys.add}}</button></form>{{/manage}}
        """

    static let groups = """
        {{#group}}<h1>{{t.console.groups.group}}</h1>
        <p><a href="/console/tenants/{{tenantName}}/groups">{{t.console.groups.all}}</a> · {{t.console.col.id}} <code>{{id}}</code>{{#externalID}} · {{t.console.col.directory_id}} <code>{{externalID}}</code>{{/externalID}}</p>
        <div class="table"><table id="group-members"><thead><tr><th scope="col">{{t.console.col.member}}</th><th scope="col">{{t.console.col.user_id}}</th></tr></thead><tbody>
        {{#members}}<tr><td><a href="/console/tenants/{{tenantName}}/users/{{id}}">{{username}}</a></td><td><code>{{id}}</code></td></tr>{{/members}}
        </tbody></table></div>{{^members}}<p>{{t.console.groups.no_members}}</p>{{/members}}{{/group}}
        {{^group}}<h1>{{t.console.groups.title}}</h1>
        <p>{{t.console.groups.intro}}</p>
        <div class="table"><table id="groups"><thead><tr><th scope="col">{{t.console.col.name}}</th><th scope="col">{{t.console.col.members}}</th><th scope="col">{{t.console.col.directory_id}}</th></tr></thead><tbody>
        {{#groups}}<tr><td><a href="/console/tenants/{{tenantName}}/groups/{{id}}">{{name}}</a></td><td>{{memberCount}}</td><td>{{externalID}}</td></tr>{{/groups}}
        </tbody></table></div>{{^groups}}<p>{{t.console.groups.none}}</p>{{/groups}}{{/group}}
        """

    static let apiKeys = """
        <h1>{{t.console.apikeys.title}}</h1>
        <div class="table"><table id="api-keys"><thead><tr><th scope="col">{{t.console.col.name}}</th><th scope="col">{{t.console.col.role}}</th><th scope="col">{{t.console.col.tenant}}</th><th scope="col">{{t.console.col.created}}</th><th scope="col">{{t.console.col.actions}}</th></tr></thead><tbody>
        {{#keys}}<tr><td>{{name}}</td><td>{{role}}</td><td>{{tenant}}</td><td>{{created}}</td><td>
        <form method="post" action="/console/keys/{{id}}/revoke" class="inline revoke-key" data-confirm="{{t.console.apikeys.revoke_confirm}}">{{>csrf}}<button class="danger">{{t.console.revoke}}</button></form></td></tr>{{/keys}}
        </tbody></table></div>
        <h2>{{t.console.apikeys.new}}</h2>
        <form method="post" action="/console/keys" class="stack" id="create-api-key">{{>csrf}}
        <div><label for="key-name">{{t.console.col.name}}</label><input id="key-name" name="name" required maxlength="128" value="{{values.name}}" {{#errors.name}}aria-describedby="name-error" aria-invalid="true"{{/errors.name}}>{{#errors.name}}{{>field}}{{/errors.name}}</div>
        <div><label for="key-role">{{t.console.col.role}}</label><select id="key-role" name="role"><option value="admin">admin</option><option value="helpdesk">helpdesk</option><option value="auditor">auditor</option></select></div>
        <div><label for="key-tenant">{{t.console.col.tenant}}</label><select id="key-tenant" name="tenant">{{#all}}<option value="">{{t.console.every_tenant}}</option>{{/all}}{{#tenants}}<option value="{{name}}">{{name}}</option>{{/tenants}}</select>{{#errors.tenant}}{{>field}}{{/errors.tenant}}</div>
        <button>{{t.console.apikeys.create}}</button></form>
        """

    static let webhooks = """
        <h1>{{t.console.nav.webhooks}}</h1>
        <p>{{t.console.webhooks.intro}}</p>
        <div class="table"><table id="webhooks"><thead><tr><th scope="col">{{t.console.col.url}}</th><th scope="col">{{t.console.col.events}}</th><th scope="col">{{t.console.col.tenant}}</th><th scope="col">{{t.console.col.state}}</th><th scope="col">{{t.console.col.waiting}}</th><th scope="col">{{t.console.col.created}}</th><th scope="col">{{t.console.col.actions}}</th></tr></thead><tbody>
        {{#hooks}}<tr id="webhook-{{id}}"><td><code>{{url}}</code></td><td>{{events}}</td><td>{{tenant}}</td><td class="state">{{state}}{{#reason}}<br><small>{{reason}}</small>{{/reason}}</td><td class="waiting">{{waiting}}</td><td>{{created}}</td><td>
        <form method="post" action="/console/webhooks/{{id}}/test" class="inline test-webhook">{{>csrf}}<button>{{t.console.webhooks.test}}</button></form>
        {{#disabled}}<form method="post" action="/console/webhooks/{{id}}/enable" class="inline enable-webhook">{{>csrf}}<button>{{t.console.enable}}</button></form>{{/disabled}}
        <form method="post" action="/console/webhooks/{{id}}/remove" class="inline remove-webhook" data-confirm="{{t.console.webhooks.remove_confirm}}">{{>csrf}}<button class="danger">{{t.console.remove}}</button></form></td></tr>{{/hooks}}
        </tbody></table></div>
        <h2>{{t.console.webhooks.new}}</h2>
        <form method="post" action="/console/webhooks" class="stack" id="create-webhook">{{>csrf}}
        <div><label for="webhook-url">{{t.console.col.url}}</label><input id="webhook-url" name="url" type="url" required maxlength="2048" value="{{values.url}}" {{#errors.url}}aria-describedby="url-error" aria-invalid="true"{{/errors.url}}>{{#errors.url}}{{>field}}{{/errors.url}}</div>
        <div><label for="webhook-events">{{t.console.col.events}}</label><input id="webhook-events" name="events" required maxlength="2000" value="{{values.events}}" placeholder="audit.*, login.failed, login.locked" aria-describedby="events-error events-help"><small id="events-help">{{t.console.webhooks.events_help}}</small>{{#errors.events}}{{>field}}{{/errors.events}}</div>
        <div><label for="webhook-tenant">{{t.console.col.tenant}}</label><select id="webhook-tenant" name="tenant">{{#all}}<option value="">{{t.console.every_tenant}}</option>{{/all}}{{#tenants}}<option value="{{name}}">{{name}}</option>{{/tenants}}</select>{{#errors.tenant}}{{>field}}{{/errors.tenant}}</div>
        <button>{{t.console.webhooks.add}}</button></form>
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
