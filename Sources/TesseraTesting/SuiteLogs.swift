import Foundation
import Logging
import TesseraServer

/// The suite's servers' logs, checked as a whole (scripts/test.sh's SQLite pass).
///
/// With `TESSERA_TEST_LOG_DIR` set, every server the suite runs logs JSON lines at info
/// level into that directory: the in-process ones through the same handler as `tessera
/// serve --log-format json` (`servers.jsonl`), the `tessera serve` children with that flag
/// (`child-*.jsonl`, their standard error). And every secret the suite's clients send or
/// receive (tokens, codes, client secrets, PIN proofs, invitation links, cookies, bearer
/// credentials) is recorded in `secrets.txt`, one per line. scripts/check_logs.py then
/// checks that every line parses as JSON, that request lines carry their keys, and that no
/// secret appears in any log. Without it, servers log errors only, as text.
public enum SuiteLogs {
    public static let directory = ProcessInfo.processInfo.environment["TESSERA_TEST_LOG_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    private static let servers: LogOutput? = directory.flatMap { try? LogOutput(appendingTo: "\($0)/servers.jsonl") }
    private static let secrets: LogOutput? = directory.flatMap { try? LogOutput(appendingTo: "\($0)/secrets.txt") }

    /// The logger an in-process test server gets.
    public static func logger(label: String) -> Logger {
        if let servers {
            return Logger(label: label) { JSONLogHandler(label: $0, level: .info, output: servers) }
        }
        var logger = Logger(label: label, factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .error
        return logger
    }

    /// The log options of a `tessera serve` child, and the file its standard error goes to.
    public static func childLogging() -> (arguments: [String], errorFile: String?) {
        guard let directory else { return (["--log-level", "critical"], nil) }
        return (["--log-format", "json", "--log-level", "info"], "\(directory)/child-\(UUID().uuidString).jsonl")
    }

    /// Keys whose values are secrets wherever they appear (JSON bodies, forms).
    static let secretKeys: Set<String> = [
        "access_token", "refresh_token", "id_token", "identity_token", "sso_token", "logout_token", "registration_access_token",
        "client_secret", "code", "code_verifier", "proof", "biometric_proof", "pin_key", "totp_secret", "secret", "token",
        "app_identity_token", "device_token", "password", "smtp_password", "otp",
    ]

    /// Records a secret the suite made or was given: at least 12 characters, and not a
    /// word (`invalid_request`): shorter values (a PIN, a one-time code) and words would
    /// match by chance; the tokens, codes and secrets the server makes are longer.
    public static func secret(_ value: String) {
        guard let secrets, value.utf8.count >= 12, !value.contains("\n"),
            !value.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || $0 == UInt8(ascii: "_") })
        else { return }
        secrets.write(Array((value + "\n").utf8))
    }

    /// Records the secrets of one exchange: its headers (bearer and DPoP credentials,
    /// cookies, device tokens, a redirect's code) and its bodies (JSON or a form).
    public static func exchange(requestHeaders: [(String, String)], requestBody: Data?, responseHeaders: [(String, String)], responseBody: Data?) {
        guard secrets != nil else { return }
        for (name, value) in requestHeaders + responseHeaders {
            switch name.lowercased() {
            case "authorization":
                if let space = value.firstIndex(of: " ") { secret(String(value[value.index(after: space)...])) }
            case "cookie":
                for pair in value.split(separator: ";") { if let equals = pair.firstIndex(of: "=") { secret(String(pair[pair.index(after: equals)...])) } }
            case "set-cookie":
                let first = value.split(separator: ";").first ?? ""
                if let equals = first.firstIndex(of: "=") { secret(String(first[first.index(after: equals)...])) }
            case "tessera-device", "dpop":
                secret(value)
            case "location":
                query(value)
            default:
                break
            }
        }
        for body in [requestBody, responseBody] {
            guard let body, !body.isEmpty else { continue }
            if let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) {
                walk(object, key: nil)
            } else if let text = String(data: body, encoding: .utf8), text.contains("="), !text.contains("<") {
                form(text)
            }
        }
    }

    private static func walk(_ value: Any, key: String?) {
        switch value {
        case let object as [String: Any]:
            for (name, item) in object { walk(item, key: name) }
        case let array as [Any]:
            for item in array { walk(item, key: key) }
        case let text as String:
            if let key, secretKeys.contains(key) { secret(text) }
            // Activation and invitation links carry their code in the query or fragment.
            if key == "url" || key == "activation_url" || key == "link" { query(text) }
        default:
            break
        }
    }

    private static func query(_ url: String) {
        guard let components = URLComponents(string: url) else { return }
        for item in components.queryItems ?? [] where secretKeys.contains(item.name) { if let value = item.value { secret(value) } }
        if let fragment = components.fragment { form(fragment) }
    }

    private static func form(_ text: String) {
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let name = String(parts[0]).removingPercentEncoding, secretKeys.contains(name) else { continue }
            secret(String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(parts[1]))
        }
    }
}
