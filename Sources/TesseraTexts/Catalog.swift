import Foundation

/// The words every page, message and prompt a person reads is written in: one catalog per
/// language, a JSON object of keys and sentences (`Catalogs/en.json`), built into the binary.
/// A sentence names its values as placeholders, `{service}`; every catalog has every key of
/// the English one with the same placeholders (a test checks it), and a tenant may put its
/// own sentence in place of any of them (`Texts.overrides`).
///
/// ```swift
/// let texts = Catalog.shared.texts(language: "de", overrides: tenant.texts["de"] ?? [:])
/// texts("login.title", ["service": "Webmail"])  // "Bei Webmail anmelden"
/// ```
public struct Catalog: Sendable {
    /// The languages there is a catalog for, English first (the one every other follows).
    public static let languages = ["en", "de", "fr"]

    /// Language → key → sentence.
    public let sentences: [String: [String: String]]

    /// The built-in catalogs, read once.
    public static let shared = Catalog(
        sentences: [
            "en": parse(PackageResources.en_json, "en"), "de": parse(PackageResources.de_json, "de"),
            "fr": parse(PackageResources.fr_json, "fr"),
        ])

    public init(sentences: [String: [String: String]]) {
        self.sentences = sentences
    }

    private static func parse(_ bytes: [UInt8], _ language: String) -> [String: String] {
        do {
            return try JSONDecoder().decode([String: String].self, from: Data(bytes))
        } catch {
            preconditionFailure("the \(language) catalog is not a JSON object of strings: \(error)")
        }
    }

    /// The keys of the English catalog: every key there is.
    public var keys: Set<String> { Set(sentences["en"]?.keys ?? [:].keys) }

    /// The sentences of `language` (English where it is not one of `languages`), with a
    /// tenant's own sentences in place of the catalog's.
    public func texts(language: String, overrides: [String: String] = [:]) -> Texts {
        let chosen = Self.languages.contains(language) ? language : "en"
        return Texts(language: chosen, sentences: sentences[chosen] ?? [:], fallback: sentences["en"] ?? [:], overrides: overrides)
    }

    /// The placeholders a sentence names, `{name}` each, in order of first use.
    public static func placeholders(in sentence: String) -> [String] {
        var names: [String] = []
        var rest = Substring(sentence)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else { break }
            let name = String(after[..<close])
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == "_" }), !names.contains(name) { names.append(name) }
            rest = after[after.index(after: close)...]
        }
        return names
    }

    /// Why a tenant's own sentence for `key` in `language` cannot be taken, or nil when it
    /// can: the language and key must be the catalog's, and the sentence must name exactly
    /// the placeholders the catalog's does.
    public func problem(language: String, key: String, sentence: String) -> String? {
        guard Self.languages.contains(language) else { return "'\(language.prefix(16))' is none of \(Self.languages.joined(separator: ", "))" }
        guard let own = sentences["en"]?[key] else { return "'\(key.prefix(80))' is no key of the catalog" }
        guard !sentence.isEmpty, sentence.count <= 1000 else { return "\(key): a sentence has 1 to 1000 characters" }
        let expected = Set(Self.placeholders(in: own))
        let named = Set(Self.placeholders(in: sentence))
        guard expected == named else {
            let list = expected.isEmpty ? "none" : expected.sorted().map { "{\($0)}" }.joined(separator: ", ")
            return "\(key): the sentence must name the placeholders \(list), as the catalog's does"
        }
        return nil
    }

    /// The language a page is written in: the first of the service's `ui_locales` (OpenID
    /// Core §3.1.2.1) there is a catalog for, else the browser's `Accept-Language` (by
    /// weight, RFC 9110 §12.5.4), else `fallback` (the tenant's default language).
    public static func negotiate(uiLocales: String?, acceptLanguage: String?, fallback: String) -> String {
        for tag in (uiLocales ?? "").split(separator: " ") {
            if let language = supported(tag) { return language }
        }
        var weighted: [(language: String, weight: Double, order: Int)] = []
        for (order, item) in (acceptLanguage ?? "").split(separator: ",").prefix(32).enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, let language = supported(Substring(tag)) else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            if weight > 0 { weighted.append((language, weight, order)) }
        }
        if let best = weighted.sorted(by: { $0.weight != $1.weight ? $0.weight > $1.weight : $0.order < $1.order }).first {
            return best.language
        }
        return languages.contains(fallback) ? fallback : "en"
    }

    /// The language of a terminal: the first of `LC_ALL`, `LC_MESSAGES` and `LANG` that is
    /// set (POSIX, `de_DE.UTF-8`), if there is a catalog for it; English otherwise.
    public static func terminalLanguage(_ environment: [String: String]) -> String {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment[name], !value.isEmpty else { continue }
            let tag = value.split(separator: ".").first.map { $0.replacingOccurrences(of: "_", with: "-") } ?? ""
            return supported(Substring(tag)) ?? "en"
        }
        return "en"
    }

    private static func supported(_ tag: Substring) -> String? {
        guard let primary = tag.split(separator: "-").first?.lowercased(), languages.contains(primary) else { return nil }
        return primary
    }
}

/// The sentences of one language, with a tenant's own in place of the catalog's.
public struct Texts: Sendable {
    public let language: String
    let sentences: [String: String]
    let fallback: [String: String]
    let overrides: [String: String]

    /// The sentence `key` with its placeholders filled from `values` (a placeholder without
    /// a value stays as it is written). Unescaped: the page renderer escapes it.
    public func callAsFunction(_ key: String, _ values: [String: String] = [:]) -> String {
        let sentence = overrides[key] ?? sentences[key] ?? fallback[key] ?? key
        guard sentence.contains("{"), !values.isEmpty else { return sentence }
        var result = ""
        var rest = Substring(sentence)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}"), let value = values[String(after[..<close])] else {
                result += "{"
                rest = after
                continue
            }
            result += value
            rest = after[after.index(after: close)...]
        }
        return result + rest
    }

    /// Whether there is a sentence for `key`.
    public func has(_ key: String) -> Bool { overrides[key] != nil || sentences[key] != nil || fallback[key] != nil }

    /// A moment as a person of this language writes it, in UTC: `29 November 2026 at 14:05 UTC`.
    public func time(_ date: Date) -> String {
        var style = Date.FormatStyle(date: .long, time: .shortened, locale: Locale(identifier: language), timeZone: .gmt)
        style.calendar = Calendar(identifier: .gregorian)
        return date.formatted(style) + " UTC"
    }

    /// A whole number with the language's grouping: `10,000`, `10.000`, `10 000`.
    public func number(_ value: Int) -> String {
        value.formatted(.number.locale(Locale(identifier: language)))
    }
}
