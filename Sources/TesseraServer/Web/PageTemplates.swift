/// The Mustache templates of the pages outside the console and the account page: the
/// login page, errors, device links, the federation pages and the end-session page, each
/// rendered from its view model (`Pages`) inside `page`. `{{name}}` is escaped for HTML;
/// `{{{name}}}` only holds markup the server drew itself (a QR code's SVG, a rendered page
/// inside the frame). The ids are what login.js, webauthn.js and the tests find.
enum PageTemplates {
    static let all: [String: String] = [
        "page": page, "login": login, "error": error, "signedout": signedOut, "devicelink": deviceLink,
        "federationconfirm": federationConfirm, "federationlinked": federationLinked, "continue": continueToProvider,
    ]

    static let page = """
        <!doctype html>
        <html lang="{{language}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
        <title>{{title}}</title><link rel="stylesheet" href="/static/tessera.css">{{#scripts}}<script src="/static/{{.}}" defer></script>{{/scripts}}</head>
        <body><main>{{{content}}}</main></body></html>
        """

    static let error = """
        <h1>{{title}}</h1><p>{{message}}</p>
        """

    static let login = """
        <h1>{{words.title}} {{serviceName}}</h1>
        {{#asksForAttributes}}<p>{{words.asksFor}}</p><ul>{{#attributes}}<li>{{.}}</li>{{/attributes}}</ul>{{/asksForAttributes}}
        {{^asksForAttributes}}<p class="muted">{{words.asksForNothing}}</p>{{/asksForAttributes}}
        <p>{{words.scan}}</p>
        {{#matchCode}}<p class="match">{{words.matchBefore}}<strong id="match-code" data-match-code="{{matchCode}}">{{matchCode}}</strong>{{words.matchAfter}}</p>{{/matchCode}}
        <div class="qr" id="qr">{{{qr}}}</div>
        <p class="muted">{{words.sameDevice}} <a id="same-device" href="{{sameDeviceURL}}">{{words.openLink}}</a>.</p>
        <p class="muted">{{words.link}} <code id="authentication-url">{{authenticationURL}}</code></p>
        {{#passkeyURL}}<section class="passkey" id="passkey" data-passkey-url="{{passkeyURL}}" hidden>
          <h2>Or sign in with a passkey</h2>
          <label for="passkey-username">Username (optional)</label>
          <input id="passkey-username" name="username" autocomplete="username webauthn" autocapitalize="none" spellcheck="false">
          <p><button type="button" id="passkey-button">Sign in with a passkey</button></p>
          <p class="status failed" id="passkey-error" role="alert" hidden></p>
        </section>{{/passkeyURL}}
        {{#hasProviders}}<section class="providers" id="providers"><h2>{{words.otherProvider}}</h2><ul>{{#providers}}<li><a class="provider" href="{{url}}">{{name}}</a></li>{{/providers}}</ul></section>{{/hasProviders}}
        <div class="status" id="status" role="status">{{words.waiting}}</div>
        <div id="login" data-request="{{requestID}}" data-status-url="{{statusURL}}"
             data-complete-url="{{completeURL}}" data-expires-at="{{expiresAt}}"></div>
        """

    static let deviceLink = """
        <h1>{{title}}</h1><p>{{explanation}}</p><div class="qr">{{{qr}}}</div>
        <p class="muted"><code>{{url}}</code></p>
        {{#invitation}}<section id="passkey-register" data-code="{{code}}" data-options-url="{{issuer}}/passkeys/invitation/options"
                 data-register-url="{{issuer}}/passkeys/invitation" hidden>
          <h2>Or create a passkey</h2>
          <p>Use this invitation for a passkey in this browser or on a security key instead of a device. The invitation is used up by it.</p>
          <label for="passkey-name">Name of the passkey (optional)</label><input id="passkey-name" maxlength="64">
          <p><button type="button" id="passkey-register-button">Create a passkey</button></p>
          <p class="status" id="passkey-register-status" role="status" hidden></p>
        </section>
        {{#hasProviders}}<section class="providers" id="providers"><h2>Or sign in with another provider</h2><p>Sign in once at one of these to link it to your account. You confirm before anything is linked; from then on it signs you in here. The invitation is used up by it.</p><ul>{{#providers}}<li><form method="post" action="{{issuer}}/authorize/federation/link" class="provider-link"><input type="hidden" name="invitation" value="{{code}}"><input type="hidden" name="provider" value="{{id}}"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="provider">{{name}}</button></form></li>{{/providers}}</ul></section>{{/hasProviders}}{{/invitation}}
        """

    static let federationConfirm = """
        <h1>Link your accounts?</h1><p id="link-question">Your identity <strong id="link-identity">{{identity}}</strong> at {{provider}} \
        will sign you in as <strong id="link-username">{{username}}</strong> at {{tenant}}. Link them only if both are yours.</p>\
        <form method="post" action="{{action}}" id="confirm-link"><input type="hidden" name="link" value="{{sealed}}">\
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Link the accounts</button></form>\
        <p>Not yours? Close this page: nothing is linked, and the invitation stays good.</p>
        """

    static let federationLinked = """
        <h1>Account linked</h1>
        <p id="linked">Your account <strong>{{username}}</strong> is linked to your identity at {{provider}}. \
        From now on you can sign in with {{provider}} wherever a service offers it.</p>
        """

    static let signedOut = """
        <h1>{{title}}</h1><p id="signed-out">{{message}}</p>
        """

    /// On the way from an invitation's provider form to the provider: goes on by itself (a
    /// refresh, which a page's `form-action` does not govern), or by the link. Its own frame.
    static let continueToProvider = """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">\
        <meta http-equiv="refresh" content="0;url={{url}}"><title>Sign in at the provider</title>\
        <link rel="stylesheet" href="/static/tessera.css"></head><body><main><h1>Sign in at the provider</h1>\
        <p><a id="continue" href="{{url}}">Continue to the provider</a> to sign in; you confirm the link afterwards.</p>\
        </main></body></html>
        """
}
