/// The Mustache templates of the pages outside the console and the account page: the
/// login page, errors, device links, the federation pages and the end-session page, each
/// rendered from its view model (`Pages`) inside `page`, with the tenant's `Look` around
/// it. `{{t.key}}` is the catalog's sentence for the page's language; `{{name}}` is
/// escaped for HTML; `{{{name}}}` only holds markup the server drew itself (a QR code's
/// SVG, a rendered page inside the frame). The ids are what login.js, webauthn.js and the
/// tests find.
enum PageTemplates {
    static let all: [String: String] = [
        "page": page, "login": login, "error": error, "signedout": signedOut, "devicelink": deviceLink,
        "federationconfirm": federationConfirm, "federationlinked": federationLinked, "continue": continueToProvider,
        "brandheader": brandHeader,
    ]

    /// The tenant's logo and name above a page, for this frame and the console's layout
    /// (wide where the page is).
    static let brandHeader = """
        {{#look.hasHeader}}<header class="brand{{#wide}} wide{{/wide}}">{{#look.logoURL}}<img id="brand-logo" src="{{look.logoURL}}" alt="{{look.logoAlt}}">{{/look.logoURL}}\
        {{#look.displayName}}<span class="brand-name">{{look.displayName}}</span>{{/look.displayName}}</header>{{/look.hasHeader}}
        """

    /// The frame: the tenant's style sheet after Tessera's, its logo or name above the
    /// page, its links below.
    static let page = """
        <!doctype html>
        <html lang="{{look.language}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
        <title>{{title}}</title><link rel="stylesheet" href="/static/tessera.css">{{#look.stylesheetURL}}<link rel="stylesheet" href="{{look.stylesheetURL}}">{{/look.stylesheetURL}}\
        {{#scripts}}<script src="/static/{{.}}" defer></script>{{/scripts}}</head>
        <body>{{>brandheader}}
        <main>{{{content}}}</main>
        {{#look.hasLinks}}<footer class="brand-links"><nav>{{#look.supportURL}}<a id="support-link" href="{{look.supportURL}}">{{t.page.support}}</a>{{/look.supportURL}}\
        {{#look.privacyURL}}<a id="privacy-link" href="{{look.privacyURL}}">{{t.page.privacy}}</a>{{/look.privacyURL}}\
        {{#look.termsURL}}<a id="terms-link" href="{{look.termsURL}}">{{t.page.terms}}</a>{{/look.termsURL}}</nav></footer>{{/look.hasLinks}}
        </body></html>
        """

    static let error = """
        <h1>{{title}}</h1><p id="error-message">{{message}}</p>
        {{#detail}}<details class="muted"><summary>{{t.error.details}}</summary><p><code>{{detail}}</code></p></details>{{/detail}}
        """

    static let login = """
        {{#serviceLogoURL}}<p class="service-logo"><img id="service-logo" src="{{serviceLogoURL}}" alt="{{t.login.service_logo}}"></p>{{/serviceLogoURL}}
        <h1>{{t.login.title}}</h1>
        {{#asksForAttributes}}<p>{{t.login.asks_for}}</p><ul>{{#attributes}}<li>{{.}}</li>{{/attributes}}</ul>{{/asksForAttributes}}
        {{^asksForAttributes}}<p class="muted">{{t.login.asks_for_nothing}}</p>{{/asksForAttributes}}
        {{#matchCode}}<section class="match" aria-labelledby="match-label"><p id="match-label">{{t.login.match_label}}</p>\
        <p class="match-code"><strong id="match-code" data-match-code="{{matchCode}}">{{matchCode}}</strong></p>\
        <p class="muted">{{t.login.match_hint}}</p></section>{{/matchCode}}
        <p>{{t.login.scan}}</p>
        <div class="qr" id="qr" role="img" aria-label="{{t.login.qr}}">{{{qr}}}</div>
        <div class="status" id="status" role="status" aria-live="polite"><span class="spinner" aria-hidden="true"></span>{{t.login.waiting}}</div>
        <p class="same-device">{{t.login.same_device}} <a class="button primary" id="same-device" href="{{sameDeviceURL}}">{{t.login.open_app}}</a></p>
        <p class="muted">{{t.login.link}} <code id="authentication-url">{{authenticationURL}}</code></p>
        {{#passkeyURL}}<section class="passkey" id="passkey" data-passkey-url="{{passkeyURL}}" hidden>
          <h2>{{t.passkey.sign_in_heading}}</h2>
          <label for="passkey-username">{{t.passkey.username}}</label>
          <input id="passkey-username" name="username" autocomplete="username webauthn" autocapitalize="none" spellcheck="false">
          <p><button type="button" id="passkey-button">{{t.passkey.sign_in}}</button></p>
          <p class="status failed" id="passkey-error" role="alert" hidden></p>
        </section>{{/passkeyURL}}
        {{#hasProviders}}<section class="providers" id="providers"><h2>{{t.login.other_provider}}</h2><ul>{{#providers}}<li><a class="provider" href="{{url}}">{{name}}</a></li>{{/providers}}</ul></section>{{/hasProviders}}
        {{#hasServiceLinks}}<p class="muted service-links">{{#policyURL}}<a id="service-privacy" href="{{policyURL}}">{{t.login.service_privacy}}</a> {{/policyURL}}\
        {{#termsURL}}<a id="service-terms" href="{{termsURL}}">{{t.login.service_terms}}</a>{{/termsURL}}</p>{{/hasServiceLinks}}
        <div id="login" data-request="{{requestID}}" data-status-url="{{statusURL}}"
             data-complete-url="{{completeURL}}" data-expires-at="{{expiresAt}}"
             data-pending="{{t.login.waiting}}" data-claimed="{{t.login.claimed}}" data-approved="{{t.login.approved}}"
             data-completed="{{t.login.completed}}" data-denied="{{t.login.denied}}" data-expired="{{t.login.expired}}"
             data-locked="{{t.login.locked}}" data-wrong="{{t.login.wrong}}" data-failed="{{t.login.failed}}" data-back="{{t.login.back}}"
             data-passkey-failed="{{t.passkey.sign_in_failed}}" data-passkey-refused="{{t.passkey.refused}}"></div>
        """

    static let deviceLink = """
        <h1>{{title}}</h1><p>{{explanation}}</p>
        <div class="qr" role="img" aria-label="{{t.link.qr}}">{{{qr}}}</div>
        <p class="same-device"><a class="button primary" id="open-link" href="{{url}}">{{t.link.open}}</a></p>
        <p class="muted">{{t.link.code}} <code id="device-link">{{url}}</code></p>
        {{#invitation}}<section id="passkey-register" data-code="{{code}}" data-options-url="{{issuer}}/passkeys/invitation/options"
                 data-register-url="{{issuer}}/passkeys/invitation" data-follow="{{t.passkey.follow}}" data-created="{{t.passkey.created}}"
                 data-not-created="{{t.passkey.not_created}}" data-refused="{{t.passkey.refused}}" hidden>
          <h2>{{t.passkey.create_heading}}</h2>
          <p>{{t.passkey.create_text}}</p>
          <label for="passkey-name">{{t.passkey.name}}</label><input id="passkey-name" maxlength="64">
          <p><button type="button" id="passkey-register-button">{{t.passkey.create}}</button></p>
          <p class="status" id="passkey-register-status" role="status" aria-live="polite" hidden></p>
        </section>
        {{#hasProviders}}<section class="providers" id="providers"><h2>{{t.link.providers_heading}}</h2><p>{{t.link.providers_text}}</p><ul>{{#providers}}<li><form method="post" action="{{issuer}}/authorize/federation/link" class="provider-link"><input type="hidden" name="invitation" value="{{code}}"><input type="hidden" name="provider" value="{{id}}"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="provider">{{name}}</button></form></li>{{/providers}}</ul></section>{{/hasProviders}}{{/invitation}}
        """

    static let federationConfirm = """
        <h1>{{t.federation.confirm_title}}</h1><p id="link-question">{{{question}}}</p>\
        <p class="muted">{{t.federation.not_yours}}</p>\
        <form method="post" action="{{action}}" id="confirm-link"><input type="hidden" name="link" value="{{sealed}}">\
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="primary">{{t.federation.confirm_button}}</button></form>
        """

    static let federationLinked = """
        <h1>{{t.federation.linked_title}}</h1>
        <p id="linked">{{{text}}}</p>
        """

    static let signedOut = """
        <h1>{{title}}</h1><p id="signed-out">{{message}}</p>
        """

    /// On the way from an invitation's provider form to the provider: goes on by itself (a
    /// refresh, which a page's `form-action` does not govern), or by the link. Its own frame.
    static let continueToProvider = """
        <!doctype html><html lang="{{look.language}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">\
        <meta http-equiv="refresh" content="0;url={{url}}"><title>{{t.federation.continue_title}}</title>\
        <link rel="stylesheet" href="/static/tessera.css"></head><body><main><h1>{{t.federation.continue_title}}</h1>\
        <p><a id="continue" href="{{url}}" class="button primary">{{t.federation.continue}}</a></p><p>{{t.federation.continue_text}}</p>\
        </main></body></html>
        """
}
