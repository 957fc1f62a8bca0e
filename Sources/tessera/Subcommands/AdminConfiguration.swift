import ArgumentParser
import Foundation
import TesseraAdminAPI
import Yams

extension Admin {
    /// `tessera admin export`: the server's configuration as a YAML document.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the configuration (tenants, services, identity providers, webhooks, operators) as a YAML document.",
            discussion: """
                The document is canonical: keys and lists sorted, every setting written out, so two exports of \
                the same configuration are the same text and a diff shows what changed. Secrets are never \
                written: a confidential service's client_secret, a provider's client_secret and a webhook's \
                secret appear as references (${env:TESSERA_…}) that `tessera admin apply` resolves. Signing \
                keys are not exported: each server keeps its own. A key for one tenant exports that tenant.
                """)
        @OptionGroup var options: AdminOptions
        @Option(help: "Only this tenant (no global webhooks or operators).") var tenant: String?
        @Option(name: [.short, .long], help: "Write the document to this file instead of standard output.") var output: String?

        func run() async throws {
            let document = try await options.calling { api in try await api.exportConfiguration(query: .init(tenant: tenant)).ok.body.json }
            let text = options.json ? try ConfigurationText.json(document) : try ConfigurationText.yaml(document)
            if let output {
                do {
                    try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
                } catch {
                    throw CLIError("cannot write \(output): \(error.localizedDescription)")
                }
            } else {
                print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
            }
        }
    }

    /// `tessera admin apply -f FILE`: the server made to match a document.
    struct Apply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the server match a configuration document (YAML or JSON), in one transaction; prints what changed.",
            discussion: """
                A setting the document leaves out takes its default; applying the same document again changes \
                nothing. References in secret fields (client_secret, secret) are resolved here, before the \
                document is sent: a whole value ${env:NAME} is that environment variable, ${file:PATH} that file's content (one trailing newline \
                dropped, refused when anyone may write it; a relative path is read from the document's directory). A reference that cannot be \
                resolved stops the command before anything is sent. A service without client_secret keeps its \
                secret (a new one gets a secret, printed once); a webhook without secret likewise. \
                --prune removes, within the document's tenants, the services (ending their sessions), identity \
                providers and webhooks it does not name, and the global webhooks and operators it does not \
                name when it lists them. Exits 0 whether or not anything changed.
                """)
        @OptionGroup var options: AdminOptions
        @Option(name: [.short, .customLong("file")], help: "The document (- for standard input).") var file: String
        @Flag(help: "Print what would change without changing it.") var dryRun = false
        @Flag(help: "Remove what the document's tenants hold and it does not name.") var prune = false

        func run() async throws {
            let document = try ConfigurationText.read(file)
            let answer = try await options.calling { api in
                try await api.applyConfiguration(query: .init(dryRun: dryRun, prune: prune), body: .json(document)).ok.body.json
            }
            if options.json { return Output.encodable(answer) }
            for change in answer.changes {
                let place = change.tenant.map { "\($0)/" } ?? ""
                let what = change.kind == .tenant ? change.name : place + change.name
                var line = "\(change.action.rawValue) \(change.kind.rawValue.replacingOccurrences(of: "_", with: " ")) \(what)"
                if let fields = change.fields, !fields.isEmpty { line += ": " + fields.joined(separator: ", ") }
                print(line)
                if let secret = change.secret { print("  secret (shown once): \(secret)") }
            }
            let count = answer.changes.count
            let summary = count == 0 ? "no changes" : "\(count) change\(count == 1 ? "" : "s")"
            print(dryRun ? "\(summary) (dry run: nothing was changed)" : summary + " · digest \(answer.digest)")
        }
    }
}

/// A configuration document as text: canonical YAML (or JSON) out, YAML or JSON in with
/// its references resolved.
enum ConfigurationText {
    static func yaml(_ document: Components.Schemas.Configuration) throws -> String {
        let encoder = YAMLEncoder()
        encoder.options.sortKeys = true
        encoder.options.indent = 2
        encoder.options.width = -1
        return try encoder.encode(document)
    }

    static func json(_ document: Components.Schemas.Configuration) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
    }

    /// The document in `path` (YAML, of which JSON is a part), its references resolved.
    static func read(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Components.Schemas.Configuration {
        let data: Data
        do {
            data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError("cannot read \(path): \(error.localizedDescription)")
        }
        let directory = path == "-" ? URL(fileURLWithPath: FileManager.default.currentDirectoryPath) : URL(fileURLWithPath: path).deletingLastPathComponent()
        let node: Node
        do {
            guard let composed = try Yams.compose(yaml: String(decoding: data, as: UTF8.self)) else { throw CLIError("\(path) is empty") }
            node = try resolved(composed, environment: environment, directory: directory)
        } catch let error as CLIError {
            throw error
        } catch let error as ValidationError {
            throw error
        } catch {
            throw CLIError("\(path) is not YAML: \(error)")
        }
        do {
            return try YAMLDecoder().decode(Components.Schemas.Configuration.self, from: node)
        } catch let error as DecodingError {
            throw CLIError("\(path) is not a configuration document: \(describe(error))")
        }
    }

    /// The fields whose references are resolved: the secrets, and nothing else (a document
    /// from elsewhere cannot copy a local file into a name or address).
    static let secretFields: Set<String> = ["client_secret", "secret"]

    /// `node` with every secret field's whole reference replaced by what it names.
    static func resolved(_ node: Node, environment: [String: String], directory: URL) throws -> Node {
        switch node {
        case .mapping(let mapping):
            return .mapping(
                .init(
                    try mapping.map { pair in
                        if let key = pair.key.string, secretFields.contains(key), let text = pair.value.scalar?.string,
                            let value = try resolve(text, environment: environment, directory: directory)
                        {
                            return (pair.key, .scalar(.init(value, .init(.str), .singleQuoted)))
                        }
                        return (pair.key, try resolved(pair.value, environment: environment, directory: directory))
                    }, mapping.tag, mapping.style))
        case .sequence(let sequence):
            return .sequence(.init(try sequence.map { try resolved($0, environment: environment, directory: directory) }, sequence.tag, sequence.style))
        case .scalar, .alias:
            return node
        }
    }

    /// What a reference names, or nil when `text` is none.
    static func resolve(_ text: String, environment: [String: String], directory: URL) throws -> String? {
        guard text.hasPrefix("${"), text.hasSuffix("}") else { return nil }
        let inner = text.dropFirst(2).dropLast()
        if inner.hasPrefix("env:") {
            let name = String(inner.dropFirst(4))
            guard let value = environment[name], !value.isEmpty else { throw CLIError("\(text): the environment variable \(name) is not set") }
            return value
        }
        if inner.hasPrefix("file:") {
            let path = String(inner.dropFirst(5))
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
            // Read as every secret file is: one trailing newline dropped, refused when empty or writable by anyone.
            return try Settings.readSecret(url.path, origin: .flag(text))
        }
        throw CLIError("\(text.prefix(80)): a reference is ${env:NAME} or ${file:PATH}")
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)).\(key.stringValue) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
