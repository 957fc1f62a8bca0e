import ArgumentParser
import Configuration
import Foundation
import SystemPackage
import TesseraStore
import Yams

/// Where an option's value came from, as `--print-config` and the refusals name it.
enum SettingOrigin: CustomStringConvertible {
    case flag(String)
    case environment(String)
    case file(key: String, path: String)
    case standard

    var description: String {
        switch self {
        case .flag(let name): name
        case .environment(let name): name
        case .file(let key, let path): "\(key) in \(path)"
        case .standard: "default"
        }
    }
}

/// The options of `serve`, `rekey` and `seed` as layers: a flag beats the environment
/// (`TESSERA_` and the key in capitals), which beats the configuration file (`--config`,
/// YAML, keys are the long flags' names with underscores), which beats the default. The
/// file and the environment are read with swift-configuration (its YAML provider on Yams);
/// since it takes any key, the file's keys are checked here first: an unknown key, a wrong
/// type or a value out of range is a refusal (exit 64, as a bad flag) naming the key and
/// where it came from.
///
/// A secret `x` may also come from a file, whose content (one trailing newline dropped)
/// is the value: `--x-file`, `TESSERA_X_FILE`, `x_file`. A file others may write is
/// refused; one others may read gets a warning (container secrets are often 0444).
final class Settings {
    let path: String?
    private let file: ConfigReader?
    private let fileKeys: Set<String>
    private let environment: ConfigReader
    private let variables: [String: String]
    /// What was read, in order, for `--print-config`.
    private(set) var resolved: [(key: String, value: String, origin: SettingOrigin)] = []
    /// Warnings about the settings (a secret file others may read), kept for the log when
    /// `holdsWarnings` (serve writes them once its log is set up, as text or JSON lines);
    /// otherwise written to standard error at once.
    var holdsWarnings = false
    private(set) var warnings: [String] = []

    private init(path: String?, file: ConfigReader?, fileKeys: Set<String>, variables: [String: String]) {
        self.path = path
        self.file = file
        self.fileKeys = fileKeys
        self.variables = variables
        environment = ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: variables)).scoped(to: "tessera")
    }

    /// Reads `path` (when given), refusing a key not in `keys`.
    static func load(_ path: String?, keys: Set<String>, environment: [String: String] = ProcessInfo.processInfo.environment) async throws
        -> Settings
    {
        // Empty variables count as unset, as they always have here.
        let variables = environment.filter { $0.key.hasPrefix("TESSERA_") && !$0.value.isEmpty }
        guard let path else { return Settings(path: nil, file: nil, fileKeys: [], variables: variables) }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ValidationError("cannot read the configuration file \(path): \(error.localizedDescription)")
        }
        let keysInFile: Set<String>
        do {
            switch try Yams.compose(yaml: text) {
            case nil:
                keysInFile = []
            case .mapping(let mapping)?:
                keysInFile = Set(try mapping.keys.map { node -> String in
                    guard let key = node.string else { throw ValidationError("\(path): a key that is not a name (\(node))") }
                    return key
                })
            default:
                throw ValidationError("\(path): the configuration is a mapping of option names to values")
            }
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("\(path) is not valid YAML: \(error)")
        }
        if let unknown = keysInFile.subtracting(keys).sorted().first {
            throw ValidationError("unknown key \(unknown) in \(path) (the keys are the long options' names with underscores)")
        }
        // An empty file sets nothing (the YAML provider wants a mapping at the top).
        guard !keysInFile.isEmpty else { return Settings(path: path, file: nil, fileKeys: [], variables: variables) }
        let reader: ConfigReader
        do {
            reader = ConfigReader(provider: try await FileProvider<YAMLSnapshot>(filePath: FilePath(path)))
        } catch {
            throw ValidationError("\(path) is not a configuration file: \(error)")
        }
        return Settings(path: path, file: reader, fileKeys: keysInFile, variables: variables)
    }

    static func variable(_ key: String) -> String { "TESSERA_" + key.uppercased() }
    static func flag(_ key: String) -> String { "--" + key.replacingOccurrences(of: "_", with: "-") }

    /// Older names a variable keeps working under: `TESSERA_DATABASE_URL` for `database`.
    static let aliases = ["database": "database_url"]

    /// The layer that sets `key` below the flags, and a typed read of it there.
    private func layer<Value>(
        _ key: String, _ read: (ConfigReader, ConfigKey) throws -> Value, what: String
    ) throws -> (Value, SettingOrigin)? {
        for name in [key] + [Self.aliases[key]].compactMap({ $0 }) where variables[Self.variable(name)] != nil {
            do {
                return (try read(environment, ConfigKey(name)), .environment(Self.variable(name)))
            } catch {
                throw ValidationError("\(Self.variable(name)): not \(what)")
            }
        }
        if let file, let path, fileKeys.contains(key) {
            do {
                return (try read(file, ConfigKey(key)), .file(key: key, path: path))
            } catch {
                throw ValidationError("\(key) in \(path): not \(what)")
            }
        }
        return nil
    }

    private func note(_ key: String, _ value: String, _ origin: SettingOrigin) {
        // A URL's password is a secret too.
        var shown = value
        if var url = URLComponents(string: value), url.password != nil, url.scheme != nil {
            url.password = "REDACTED"
            shown = url.string ?? "(a URL with a password)"
        }
        resolved.append((key, shown, origin))
    }

    func int(_ key: String, flag: Int?, default standard: Int, in range: ClosedRange<Int>, zeroMeans: String? = nil) throws -> Int {
        let (value, origin): (Int, SettingOrigin) =
            if let flag { (flag, .flag(Self.flag(key))) } else {
                try layer(key, { try $0.requiredInt(forKey: $1) }, what: "a whole number") ?? (standard, .standard)
            }
        guard range.contains(value) || (zeroMeans != nil && value == 0) else {
            let span = zeroMeans.map { "0 (\($0)) or \(range.lowerBound) to \(range.upperBound)" } ?? "\(range.lowerBound) to \(range.upperBound)"
            throw ValidationError("\(origin): \(key) is \(span), not \(value)")
        }
        note(key, String(value), origin)
        return value
    }

    func string(_ key: String, flag: String?, default standard: String? = nil) throws -> String? {
        let found: (String, SettingOrigin)? =
            if let flag { (flag, .flag(Self.flag(key))) } else {
                try layer(key, { try $0.requiredString(forKey: $1) }, what: "a string")
            }
        guard let (value, origin) = found else {
            if let standard { note(key, standard, .standard) }
            return standard
        }
        note(key, value, origin)
        return value
    }

    func bool(_ key: String, flag: Bool) throws -> Bool {
        let (value, origin): (Bool, SettingOrigin) =
            if flag { (true, .flag(Self.flag(key))) } else {
                try layer(key, { try $0.requiredBool(forKey: $1) }, what: "true or false") ?? (false, .standard)
            }
        note(key, String(value), origin)
        return value
    }

    func strings(_ key: String, flag: [String]) throws -> [String] {
        let (value, origin): ([String], SettingOrigin) =
            if !flag.isEmpty { (flag, .flag(Self.flag(key))) } else {
                try layer(key, { try $0.requiredStringArray(forKey: $1) }, what: "a list of strings") ?? ([], .standard)
            }
        note(key, value.joined(separator: ","), origin)
        return value
    }

    /// A secret: its value (`--x`, `TESSERA_X`, `x`; only where `plain`) or its file's
    /// content (`--x-file`, `TESSERA_X_FILE`, `x_file`), the first layer that has either.
    /// Shown by `--print-config` as redacted.
    func secret(_ key: String, flag: String?, fileFlag: String?, plain: Bool = true) throws -> String? {
        let fileKey = key + "_file"
        if flag != nil, fileFlag != nil { throw ValidationError("give \(Self.flag(key)) or \(Self.flag(fileKey)), not both") }
        let found: (value: String?, file: String?, origin: SettingOrigin)?
        if let flag {
            found = (flag, nil, .flag(Self.flag(key)))
        } else if let fileFlag {
            found = (nil, fileFlag, .flag(Self.flag(fileKey)))
        } else if plain, let value = variables[Self.variable(key)] {
            if variables[Self.variable(fileKey)] != nil {
                throw ValidationError("set \(Self.variable(key)) or \(Self.variable(fileKey)), not both")
            }
            found = (value, nil, .environment(Self.variable(key)))
        } else if let file = variables[Self.variable(fileKey)] {
            found = (nil, file, .environment(Self.variable(fileKey)))
        } else if let path, fileKeys.contains(key) || fileKeys.contains(fileKey) {
            guard plain || !fileKeys.contains(key) else {
                throw ValidationError("\(key) in \(path): give \(fileKey), the file that holds it, instead")
            }
            guard !(fileKeys.contains(key) && fileKeys.contains(fileKey)) else {
                throw ValidationError("\(path): give \(key) or \(fileKey), not both")
            }
            // The layers above hold neither name (checked before): this reads the file.
            let inFile = fileKeys.contains(key) ? key : fileKey
            let text = try layer(inFile, { try $0.requiredString(forKey: $1) }, what: "a string")?.0
            found = inFile == key ? (text, nil, .file(key: key, path: path)) : (nil, text, .file(key: fileKey, path: path))
        } else {
            found = nil
        }
        guard let found else { return nil }
        if let value = found.value {
            note(key, "(secret)", found.origin)
            return value
        }
        let secretFile = found.file ?? ""
        let value = try Self.readSecret(secretFile, origin: found.origin) { warning in
            if holdsWarnings { warnings.append(warning) } else { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
        }
        note(key, "(secret from \(secretFile))", found.origin)
        return value
    }

    /// `database` with the password from `database_password_file` (never a flag or a
    /// variable of its own) put into it, or nil for SQLite.
    func databaseURL(flag: String?, passwordFile: String?) throws -> String? {
        let database = try string("database", flag: flag)
        guard let password = try secret("database_password", flag: nil, fileFlag: passwordFile, plain: false) else { return database }
        guard let url = database, let parsed = try? PostgresURL(url) else {
            throw ValidationError("database_password_file needs database (a PostgreSQL URL)")
        }
        guard parsed.password == nil else { throw ValidationError("the database URL has a password already: leave it out of the URL") }
        return parsed.withPassword(password)
    }

    /// A secret file's content, one trailing newline dropped; refused when others may
    /// write it or it is empty, a warning when others may read it.
    static func readSecret(
        _ path: String, origin: SettingOrigin,
        warn: (String) -> Void = { FileHandle.standardError.write(Data("warning: \($0)\n".utf8)) }
    ) throws -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { throw ValidationError("\(origin): cannot read \(path) (\(String(cString: strerror(errno))))") }
        guard status.st_mode & S_IWOTH == 0 else {
            throw ValidationError("\(origin): \(path) may be written by anyone: refused (chmod o-w)")
        }
        if status.st_mode & S_IROTH != 0 {
            warn("\(origin): \(path) may be read by anyone")
        }
        guard var text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("\(origin): cannot read \(path) as UTF-8 text")
        }
        // One trailing newline ("\r\n" is one Character in Swift).
        if text.last == "\n" || text.last == "\r\n" { text.removeLast() }
        guard !text.isEmpty else { throw ValidationError("\(origin): \(path) is empty") }
        return text
    }

    /// `--print-config`: each value and where it came from, secrets redacted.
    func printed() -> String {
        let width = resolved.map(\.key.count).max() ?? 0
        return resolved.map { entry in
            entry.key.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + entry.value + "  (" + entry.origin.description + ")"
        }.joined(separator: "\n")
    }
}
