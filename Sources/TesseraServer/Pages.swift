import Foundation
import TesseraCore

/// The server's few HTML pages. Everything is inline: no external CDN, no external
/// scripts, and the Content-Security-Policy header allows nothing else.
enum Pages {
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    static let style = """
        body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1d2330;margin:0}
        main{max-width:30rem;margin:3rem auto;background:#fff;border-radius:12px;padding:2rem;box-shadow:0 2px 12px #0002}
        h1{font-size:1.3rem;margin-top:0}.qr{text-align:center;margin:1rem 0}.qr svg{max-width:100%;height:auto}
        .muted{color:#5b6475;font-size:.9rem}.status{padding:.75rem;border-radius:8px;background:#eef2ff;margin-top:1rem}
        .status.failed{background:#fdecec;color:#8a1c1c}.status.done{background:#e8f7ee;color:#14532d}
        a.button{display:inline-block;padding:.6rem 1rem;background:#2f4fd8;color:#fff;border-radius:8px;text-decoration:none}
        ul{padding-left:1.2rem}code{word-break:break-all;font-size:.8rem}
        """

    static func document(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
        <title>\(escape(title))</title><style>\(style)</style></head>
        <body><main>\(body)</main></body></html>
        """
    }

    static func error(title: String, message: String) -> String {
        document(title: title, body: "<h1>\(escape(title))</h1><p>\(escape(message))</p>")
    }

    /// The login page: the QR code of the authentication link, the same link for this
    /// device, the service and what it asks for; it follows the request by polling its
    /// status and moves on by itself.
    static func login(
        serviceName: String, attributes: [String], authenticationURL: String, statusURL: String, completeURL: String,
        requestID: String, expiresAt: Date
    ) -> String {
        let qr = (try? QRCode(authenticationURL).svg(moduleSize: 6)) ?? ""
        let attributeList =
            attributes.isEmpty
            ? "<p class=\"muted\">The service asks for no personal attributes.</p>"
            : "<p>It asks for:</p><ul>" + attributes.map { "<li>\(escape($0))</li>" }.joined() + "</ul>"
        let body = """
            <h1>Sign in to \(escape(serviceName))</h1>
            \(attributeList)
            <p>Scan this code with the Tessera app on your activated device, then confirm with your factors.</p>
            <div class="qr" id="qr">\(qr)</div>
            <p class="muted">On this device? <a id="same-device" href="\(escape(authenticationURL))">Open the sign-in link</a>.</p>
            <p class="muted">Link: <code id="authentication-url">\(escape(authenticationURL))</code></p>
            <div class="status" id="status" role="status">Waiting for your device…</div>
            <div id="login" data-request="\(escape(requestID))" data-status-url="\(escape(statusURL))"
                 data-complete-url="\(escape(completeURL))" data-expires-at="\(Int(expiresAt.timeIntervalSince1970))"></div>
            <script>
            (function () {
              var login = document.getElementById('login');
              var box = document.getElementById('status');
              var messages = {
                pending: 'Waiting for your device…',
                claimed: 'Your device has the request. Confirm it there.',
                approved: 'Signed in. Returning to the service…',
                completed: 'This sign-in was completed already.',
                denied: 'The sign-in was declined on the device.',
                expired: 'The sign-in request has expired. Start again from the service.',
                locked: 'The device is locked after too many wrong attempts.'
              };
              function show(text, kind) { box.textContent = text; box.className = 'status ' + (kind || ''); }
              // A long poll: the server answers when the request changes (or after 25 s).
              var known = '';
              function poll() {
                var url = login.dataset.statusUrl + (known ? '&wait=25&known=' + encodeURIComponent(known) : '');
                fetch(url, { credentials: 'same-origin', cache: 'no-store' })
                  .then(function (r) { return r.json(); })
                  .then(function (s) {
                    known = s.status + (s.locked_until ? ':' + s.locked_until : '');
                    if (s.status === 'approved') { show(messages.approved, 'done'); window.location.assign(login.dataset.completeUrl); return; }
                    if (s.status === 'pending' || s.status === 'claimed') {
                      var text = messages[s.status];
                      if (s.locked_until) { text = 'Wrong factors. Your device can try again after ' + new Date(s.locked_until * 1000).toLocaleTimeString() + '.'; }
                      show(text, s.locked_until ? 'failed' : ''); setTimeout(poll, 100); return;
                    }
                    show(messages[s.status] || s.error_description || 'The sign-in failed.', 'failed');
                    if (s.status === 'denied' || s.status === 'expired' || s.status === 'locked') {
                      var paragraph = document.createElement('p');
                      var link = document.createElement('a');
                      link.className = 'button';
                      link.href = login.dataset.completeUrl;
                      link.textContent = 'Back to the service';
                      paragraph.appendChild(link);
                      box.appendChild(paragraph);
                    }
                  })
                  .catch(function () { setTimeout(poll, 2000); });
              }
              poll();
            })();
            </script>
            """
        return document(title: "Sign in to \(serviceName)", body: body)
    }

    /// What a person sees who opens a device link in a browser.
    static func deviceLink(title: String, explanation: String, url: String) -> String {
        let qr = (try? QRCode(url).svg(moduleSize: 5)) ?? ""
        return document(
            title: title,
            body: """
                <h1>\(escape(title))</h1><p>\(escape(explanation))</p><div class="qr">\(qr)</div>
                <p class="muted"><code>\(escape(url))</code></p>
                """)
    }
}
