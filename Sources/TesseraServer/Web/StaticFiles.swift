import Hummingbird
import NIOCore

/// The pages' style sheet and scripts, served from `/static/` by the server itself: no
/// CDN, and the Content-Security-Policy allows scripts and styles from here only.
enum StaticFiles {
    static let files: [String: (type: String, body: String)] = [
        "tessera.css": ("text/css; charset=utf-8", style),
        "login.js": ("text/javascript; charset=utf-8", loginScript),
        "console.js": ("text/javascript; charset=utf-8", consoleScript),
        "webauthn.js": ("text/javascript; charset=utf-8", webAuthnScript),
    ]

    static func register(on router: Router<TesseraRequestContext>) {
        router.get("static/:file") { _, context in
            guard let name = context.parameters.get("file"), let file = files[name] else {
                throw BrowserError(status: .notFound, "not_found")
            }
            return Response(
                status: .ok,
                headers: [.contentType: file.type, .cacheControl: "public, max-age=300", .init("X-Content-Type-Options")!: "nosniff"],
                body: .init(byteBuffer: ByteBuffer(string: file.body)))
        }
    }

    static let style = """
        *{box-sizing:border-box}
        :root{--primary:#2f4fd8;--accent:#2945c2}
        body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1d2330;margin:0;line-height:1.45}
        main{max-width:30rem;margin:2rem auto;background:#fff;border-radius:12px;padding:1.5rem 2rem;box-shadow:0 2px 12px #0002}
        body.wide main{max-width:72rem}
        h1{font-size:1.35rem;margin-top:0}h2{font-size:1.1rem;margin-top:1.75rem}
        .qr{text-align:center;margin:1rem 0}.qr svg{width:min(100%,18rem);height:auto;background:#fff;padding:.5rem}
        .match{border:2px solid var(--primary);border-radius:10px;padding:.5rem 1rem;margin:1rem 0;text-align:center}
        .match p{margin:.3rem 0}.match-code strong{font-size:2.6rem;letter-spacing:.15em;line-height:1.1}
        a{color:var(--accent)}
        header.brand{max-width:30rem;margin:1.5rem auto 0;padding:0 2rem;display:flex;align-items:center;gap:.75rem}
        header.brand img{max-height:3rem;max-width:12rem}.brand-name{font-weight:700;font-size:1.1rem}header.brand.wide{max-width:72rem}.logo-preview{max-height:4rem;max-width:16rem}
        .service-logo{margin:0 0 .5rem}.service-logo img{max-height:3rem;max-width:10rem}.service-links a{margin-right:1rem}
        footer.brand-links{max-width:30rem;margin:0 auto 2rem;padding:0 2rem;font-size:.9rem}
        footer.brand-links nav{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem}
        .same-device{margin:1rem 0}
        .spinner{display:inline-block;width:.9rem;height:.9rem;margin-right:.5rem;vertical-align:-.1rem;border:2px solid #b8bfcc;
          border-top-color:var(--primary);border-radius:50%;animation:spin 1s linear infinite}
        @keyframes spin{to{transform:rotate(360deg)}}
        @media (prefers-reduced-motion:reduce){.spinner{animation:none}}
        details summary{cursor:pointer}
        .muted{color:#4f5869;font-size:.9rem}.status{padding:.75rem;border-radius:8px;background:#eef2ff;margin-top:1rem}
        .status.failed{background:#fdecec;color:#8a1c1c}.status.done{background:#e8f7ee;color:#14532d}
        a.button,button{display:inline-block;padding:.6rem 1rem;background:var(--primary);color:#fff;border:0;border-radius:8px;
          text-decoration:none;font:inherit;cursor:pointer}
        button.danger{background:#b42318}button.quiet{background:#e4e7ee;color:#1d2330}
        a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid #f5a524;outline-offset:2px}
        ul{padding-left:1.2rem}code{word-break:break-all;font-size:.85rem}
        .skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:2}
        header.top{background:#1d2330;color:#fff;padding:.5rem 1rem}
        header.top nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;max-width:72rem;margin:auto}
        header.top a{color:#fff}
        @media (max-width:40rem){header.brand,footer.brand-links{padding:0 1rem;margin-top:1rem}}header.top .who{margin-left:auto;font-size:.9rem}
        form.inline{display:inline}form.stack{display:grid;gap:.6rem;max-width:32rem}
        label{font-weight:600;display:block}input,select,textarea{font:inherit;padding:.4rem;border:1px solid #b8bfcc;border-radius:6px;width:100%}
        input[type=checkbox]{width:auto}
        .field-error{color:#8a1c1c;margin:.2rem 0 0;font-size:.9rem}.notice{background:#e8f7ee;padding:.6rem;border-radius:8px}
        .error{background:#fdecec;color:#8a1c1c;padding:.6rem;border-radius:8px}
        .once{background:#fff7e0;padding:.75rem;border-radius:8px}
        .table{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.92rem}
        th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e4e7ee;vertical-align:top}
        .cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:1rem}
        .card{border:1px solid #e4e7ee;border-radius:10px;padding:1rem}.card dl{display:grid;grid-template-columns:auto auto;gap:.2rem 1rem}
        .card dd{margin:0;text-align:right;font-weight:600}.card h2{margin-top:0}.chart svg{width:100%;height:auto}
        .actions{display:flex;flex-wrap:wrap;gap:.5rem}
        @media (max-width:40rem){main{margin:0;border-radius:0;padding:1rem}body.wide main{max-width:none}}
        """

    /// The login page's script: follows its request by a long poll and moves on by itself.
    static let loginScript = """
        (function () {
          var login = document.getElementById('login');
          var box = document.getElementById('status');
          if (!login || !box) { return; }
          // The page's words, in its language, from the catalog (data-* of #login).
          var messages = login.dataset;
          function show(text, kind, waiting) {
            box.textContent = '';
            if (waiting) { var spinner = document.createElement('span'); spinner.className = 'spinner'; spinner.setAttribute('aria-hidden', 'true'); box.appendChild(spinner); }
            box.appendChild(document.createTextNode(text));
            box.className = 'status ' + (kind || '');
          }
          // A long poll: the server answers when the request changes (or after 25 s).
          var known = '';
          function poll() {
            var url = login.dataset.statusUrl + (known ? '&wait=25&known=' + encodeURIComponent(known) : '');
            fetch(url, { credentials: 'same-origin', cache: 'no-store' })
              .then(function (r) {
                // Too many waiting pages (429) or a busy node (503): ask again when told to.
                if (r.status === 429 || r.status === 503) {
                  var seconds = parseInt(r.headers.get('Retry-After') || '2', 10);
                  setTimeout(poll, Math.max(1, Math.min(seconds, 30)) * 1000);
                  return null;
                }
                return r.json();
              })
              .then(function (s) {
                if (s === null) { return; }
                known = s.status + (s.locked_until ? ':' + s.locked_until : '');
                if (s.status === 'approved') {
                  show(messages.approved, 'done');
                  // A passkey sign-in (webauthn.js) may be on its way to the same page: go once.
                  if (!document.body.dataset.leaving) { document.body.dataset.leaving = '1'; window.location.assign(login.dataset.completeUrl); }
                  return;
                }
                if (s.status === 'pending' || s.status === 'claimed') {
                  var text = messages[s.status];
                  if (s.locked_until) {
                    var time = new Date(s.locked_until * 1000).toLocaleTimeString(document.documentElement.lang, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
                    text = messages.wrong.replace('{time}', time);
                  }
                  show(text, s.locked_until ? 'failed' : '', !s.locked_until); setTimeout(poll, 100); return;
                }
                var known_ = { completed: 1, denied: 1, expired: 1, locked: 1 };
                show(known_[s.status] ? messages[s.status] : messages.failed, 'failed');
                if (s.status === 'denied' || s.status === 'expired' || s.status === 'locked') {
                  var paragraph = document.createElement('p');
                  var link = document.createElement('a');
                  link.className = 'button primary';
                  link.href = login.dataset.completeUrl;
                  link.textContent = messages.back;
                  paragraph.appendChild(link);
                  box.appendChild(paragraph);
                }
              })
              .catch(function () { setTimeout(poll, 2000); });
          }
          poll();
        })();
        """

    /// Passkeys in the browser: sign-in on the login page (a button, and the browser's
    /// autofill where it offers conditional mediation) and registration on the account
    /// page or from an invitation. WebAuthn's options and responses travel in its JSON
    /// forms (base64url), converted here so older browsers without `toJSON` work too.
    static let webAuthnScript = """
        (function () {
          function bytes(text) {
            var s = text.replace(/-/g, '+').replace(/_/g, '/');
            while (s.length % 4) { s += '='; }
            var binary = atob(s), out = new Uint8Array(binary.length);
            for (var i = 0; i < binary.length; i++) { out[i] = binary.charCodeAt(i); }
            return out.buffer;
          }
          function text(buffer) {
            var view = new Uint8Array(buffer), binary = '';
            for (var i = 0; i < view.length; i++) { binary += String.fromCharCode(view[i]); }
            return btoa(binary).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
          }
          function descriptors(list) {
            return (list || []).map(function (d) {
              var out = { type: d.type, id: bytes(d.id) };
              if (d.transports) { out.transports = d.transports; }
              return out;
            });
          }
          function post(url, body, headers) {
            var all = { 'Content-Type': 'application/json' };
            for (var name in (headers || {})) { all[name] = headers[name]; }
            return fetch(url, { method: 'POST', credentials: 'same-origin', cache: 'no-store', headers: all, body: JSON.stringify(body) })
              .then(function (r) {
                return r.json().catch(function () { return {}; }).then(function (answer) {
                  if (!r.ok) { throw new Error(refused || answer.error_description || 'The server refused the passkey.'); }
                  return answer;
                });
              });
          }
          function say(element, message, kind) { element.textContent = message; element.className = 'status ' + (kind || ''); element.hidden = false; }
          var supported = !!(window.PublicKeyCredential && navigator.credentials);
          // The page's words in its language (data-* from the catalog); the account page has none.
          var words = document.getElementById('login') ? document.getElementById('login').dataset : {};
          var registerWords = document.getElementById('passkey-register') ? document.getElementById('passkey-register').dataset : {};
          var refused = registerWords.refused || words.passkeyRefused || '';

          var login = document.getElementById('passkey');
          if (login && supported) {
            login.hidden = false;
            var url = login.dataset.passkeyUrl;
            var optionsURL = url.replace('/authorize/passkey?', '/authorize/passkey/options?');
            var problem = document.getElementById('passkey-error');
            var username = document.getElementById('passkey-username');
            var running = null;
            var fail = function (e) {
              if (e && e.name === 'AbortError') { return; }
              say(problem, e && e.message ? e.message : (words.passkeyFailed || 'The passkey sign-in did not work.'), 'failed');
            };
            var signIn = function (conditional) {
              var body = (!conditional && username.value) ? { username: username.value } : {};
              return post(optionsURL, body).then(function (o) {
                if (running) { running.abort(); }
                var controller = new AbortController();
                running = controller;
                var request = {
                  publicKey: { challenge: bytes(o.challenge), rpId: o.rpId, timeout: o.timeout, userVerification: o.userVerification,
                               allowCredentials: descriptors(o.allowCredentials) },
                  signal: controller.signal
                };
                if (conditional) { request.mediation = 'conditional'; }
                return navigator.credentials.get(request);
              }).then(function (c) {
                if (!c) { return; }
                return post(url, {
                  id: c.id, rawId: text(c.rawId), type: c.type,
                  response: { clientDataJSON: text(c.response.clientDataJSON), authenticatorData: text(c.response.authenticatorData),
                              signature: text(c.response.signature), userHandle: c.response.userHandle ? text(c.response.userHandle) : null }
                }).then(function (answer) {
                  if (!document.body.dataset.leaving) { document.body.dataset.leaving = '1'; window.location.assign(answer.complete_url); }
                });
              });
            };
            document.getElementById('passkey-button').addEventListener('click', function () { problem.hidden = true; signIn(false).catch(fail); });
            if (PublicKeyCredential.isConditionalMediationAvailable) {
              PublicKeyCredential.isConditionalMediationAvailable().then(function (yes) { if (yes) { signIn(true).catch(fail); } });
            }
          }

          var register = document.getElementById('passkey-register');
          if (register && supported) {
            register.hidden = false;
            var status = document.getElementById('passkey-register-status');
            var headers = register.dataset.csrf ? { 'X-CSRF-Token': register.dataset.csrf } : {};
            var base = register.dataset.code ? { code: register.dataset.code } : {};
            document.getElementById('passkey-register-button').addEventListener('click', function () {
              say(status, register.dataset.follow || 'Follow your browser or security key…', '');
              post(register.dataset.optionsUrl, base, headers).then(function (o) {
                return navigator.credentials.create({ publicKey: {
                  challenge: bytes(o.challenge), rp: o.rp, user: { id: bytes(o.user.id), name: o.user.name, displayName: o.user.displayName },
                  pubKeyCredParams: o.pubKeyCredParams, timeout: o.timeout, excludeCredentials: descriptors(o.excludeCredentials),
                  authenticatorSelection: o.authenticatorSelection, attestation: o.attestation
                } });
              }).then(function (c) {
                var body = { name: document.getElementById('passkey-name').value || null, credential: {
                  id: c.id, rawId: text(c.rawId), type: c.type,
                  response: { clientDataJSON: text(c.response.clientDataJSON), attestationObject: text(c.response.attestationObject),
                              transports: c.response.getTransports ? c.response.getTransports() : [] }
                } };
                if (register.dataset.code) { body.code = register.dataset.code; }
                return post(register.dataset.registerUrl, body, headers);
              }).then(function () {
                if (register.dataset.done) { window.location.assign(register.dataset.done); return; }
                say(status, register.dataset.created || 'Your passkey is registered. You can sign in with it now.', 'done');
              }).catch(function (e) { say(status, e && e.message ? e.message : (register.dataset.notCreated || 'The passkey was not registered.'), 'failed'); });
            });
          }
        })();
        """

    /// The console's one enhancement: forms marked `data-confirm` ask first. Without
    /// script every form still works.
    static let consoleScript = """
        document.addEventListener('submit', function (event) {
          var form = event.target;
          var question = form.getAttribute('data-confirm');
          if (question && !window.confirm(question)) { event.preventDefault(); }
        });
        """
}
