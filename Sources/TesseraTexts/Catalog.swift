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
    /// The same, each sentence split at its placeholders once (`pieces`): a page fills them
    /// without reading the sentence again.
    let parsed: [String: [String: [Piece]]]

    /// The built-in catalogs, read once.
    public static let shared = Catalog(
        sentences: [
            "en": parse(PackageResources.en_json, "en"), "de": parse(PackageResources.de_json, "de"),
            "fr": parse(PackageResources.fr_json, "fr"),
        ])

    public init(sentences: [String: [String: String]]) {
        self.sentences = sentences
        parsed = sentences.mapValues { $0.mapValues(Self.pieces(of:)) }
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
        return Texts(language: chosen, parsed: parsed[chosen] ?? [:], fallback: parsed["en"] ?? [:], overrides: overrides)
    }

    /// The placeholders a sentence names, `{name}` each, in order of first use: read as
    /// `Texts` fills them (`Catalog.pieces`), so the check and the filling never differ.
    public static func placeholders(in sentence: String) -> [String] {
        var names: [String] = []
        for case .placeholder(let name) in pieces(of: sentence) where !names.contains(name) { names.append(name) }
        return names
    }

    /// A sentence's text and placeholders in order.
    enum Piece: Equatable, Sendable {
        case text(Substring)
        case placeholder(String)
    }

    /// Splits a sentence at its placeholders: `{` then letters or `_` then `}`. Anything
    /// else is text, a `{` that opens no placeholder included (the scan goes on after it).
    static func pieces(of sentence: String) -> [Piece] {
        var pieces: [Piece] = []
        var rest = Substring(sentence)
        var text = rest.startIndex
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}") {
                let name = after[..<close]
                if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == "_" }) {
                    pieces.append(.text(sentence[text..<open]))
                    pieces.append(.placeholder(String(name)))
                    rest = after[after.index(after: close)...]
                    text = rest.startIndex
                    continue
                }
            }
            rest = after
        }
        pieces.append(.text(sentence[text...]))
        return pieces
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
/// Equal when the language and the tenant's own sentences are: the catalogs' sentences
/// are read when the server starts and do not change while it runs. Texts of two
/// different catalogs are not told apart: the server's pages read `Catalog.shared` only.
public struct Texts: Sendable, Hashable {
    public static func == (lhs: Texts, rhs: Texts) -> Bool { lhs.language == rhs.language && lhs.overrides == rhs.overrides }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(language)
        hasher.combine(overrides)
    }

    public let language: String
    let parsed: [String: [Catalog.Piece]]
    let fallback: [String: [Catalog.Piece]]
    let overrides: [String: String]

    /// The sentence `key` with its placeholders filled from `values` (a placeholder without
    /// a value stays as it is written). Unescaped: the page renderer escapes it.
    public func callAsFunction(_ key: String, _ values: [String: String] = [:]) -> String {
        text(key, values) ?? key
    }

    /// The sentence `key` filled from `values`, or nil when no catalog has the key.
    public func text(_ key: String, _ values: [String: String] = [:]) -> String? {
        guard let pieces = pieces(key) else { return nil }
        if pieces.count == 1, case .text(let text) = pieces[0] { return String(text) }
        var result = ""
        for piece in pieces {
            switch piece {
            case .text(let text): result += text
            case .placeholder(let name):
                if let value = values[name] { result += value } else { result += "{" + name + "}" }
            }
        }
        return result
    }

    /// The sentence `key` as text and placeholders, for a page that marks some values up:
    /// each piece is escaped on its own, no value is ever searched in.
    public func parts(_ key: String) -> [(text: String, placeholder: String?)] {
        (pieces(key) ?? [.text(Substring(key))]).map { piece in
            switch piece {
            case .text(let text): (String(text), nil)
            case .placeholder(let name): ("", name)
            }
        }
    }

    /// The tenant's sentence (read now: overrides are few), else the catalog's, read at start.
    private func pieces(_ key: String) -> [Catalog.Piece]? {
        if !overrides.isEmpty, let own = overrides[key] { return Catalog.pieces(of: own) }
        return parsed[key] ?? fallback[key]
    }

    /// Whether there is a sentence for `key`.
    public func has(_ key: String) -> Bool { overrides[key] != nil || parsed[key] != nil || fallback[key] != nil }

    /// A moment as a person of this language writes it, in UTC: `29 November 2026 at 14:05 UTC`.
    public func time(_ date: Date) -> String {
        var style = Date.FormatStyle(date: .long, time: .shortened, locale: locale, timeZone: .gmt)
        style.calendar = Calendar(identifier: .gregorian)
        return date.formatted(style) + " UTC"
    }

    /// A whole number with the language's grouping: `10,000`, `10.000`, `10 000`.
    public func number(_ value: Int) -> String {
        value.formatted(.number.locale(locale))
    }

    /// English as written in Britain (29 November 2026, 14:05: no US order, no AM/PM); the others as they are.
    var locale: Locale { Locale(identifier: language == "en" ? "en_GB" : language) }
}
