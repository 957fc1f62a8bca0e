import ArgumentParser
import Foundation
import TesseraAdminAPI

extension Admin.User {
    /// `tessera admin user import FILE.jsonl`: a migration's users, in batches.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a tenant's users from a JSON Lines file, in batches; prints what was created, skipped and refused.",
            discussion: """
                Each line is one user: {"username": "alice", "attributes": {"email": "alice@example.com"}, \
                "external_id": "…", "disabled": false} (only username is required; blank lines are ignored). \
                A username the tenant has is skipped, so an import can be run again after a failure. \
                A line that is not such an object, or not a valid user, is refused with its reason. \
                Exits 1 if any line was refused.
                """)
        @OptionGroup var options: AdminOptions
        @Option(help: "Tenant name.") var tenant: String
        @Option(help: "Users per request (1 to 500; a request is also kept under 56 KiB).") var batchSize = 200
        @Argument(help: "The JSON Lines file (- for standard input).") var file: String

        /// A request's body stays under this (the server takes 64 KiB).
        static let maximumBody = 56 * 1024

        struct Refusal: Encodable {
            let line: Int
            let username: String?
            let reason: String
        }

        struct Summary: Encodable {
            var created = 0
            var skipped = 0
            var refused: [Refusal] = []
            var skippedUsernames: [String] = []

            enum CodingKeys: String, CodingKey {
                case created, skipped, refused
                case skippedUsernames = "skipped_usernames"
            }
        }

        func validate() throws {
            guard (1...500).contains(batchSize) else { throw ValidationError("--batch-size is 1 to 500") }
        }

        func run() async throws {
            let data: Data
            do {
                data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CLIError("cannot read \(file): \(error.localizedDescription)")
            }
            var summary = Summary()
            var batch: [(line: Int, user: Components.Schemas.ImportUser)] = []
            var batchBytes = 0
            func send() async throws {
                guard !batch.isEmpty else { return }
                let lines = batch.map(\.line)
                let users = batch.map(\.user)
                let answer = try await options.calling { api in
                    try await api.importUsers(path: .init(tenant: tenant), body: .json(.init(users: users))).ok.body.json
                }
                summary.created += answer.created.count
                summary.skipped += answer.skipped.count
                summary.skippedUsernames += answer.skipped.map(\.username)
                summary.refused += answer.refused.map { Refusal(line: lines[$0.index], username: $0.username, reason: $0.reason) }
                batch = []
                batchBytes = 0
            }
            let decoder = JSONDecoder()
            // What a user takes in the request body: the API client writes it pretty-printed,
            // indented inside the list.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            func cost(_ user: Components.Schemas.ImportUser) throws -> Int {
                let text = try encoder.encode(user)
                return text.count + 4 * (text.filter { $0 == UInt8(ascii: "\n") }.count + 1) + 2
            }
            for (offset, text) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = offset + 1
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !trimmed.isEmpty else { continue }
                let user: Components.Schemas.ImportUser
                do {
                    user = try decoder.decode(Components.Schemas.ImportUser.self, from: Data(trimmed.utf8))
                } catch {
                    summary.refused.append(Refusal(line: line, username: nil, reason: "not a user object: \(Self.describe(error))"))
                    continue
                }
                let size = try cost(user)
                guard size <= Self.maximumBody else {
                    summary.refused.append(Refusal(line: line, username: String(user.username.prefix(128)), reason: "larger than a request may be"))
                    continue
                }
                if batch.count == batchSize || batchBytes + size > Self.maximumBody { try await send() }
                batch.append((line, user))
                batchBytes += size
            }
            try await send()
            summary.refused.sort { $0.line < $1.line }
            if options.json {
                Output.encodable(summary)
            } else {
                print("created: \(summary.created)")
                print("skipped: \(summary.skipped) (the tenant has these usernames)")
                print("refused: \(summary.refused.count)")
                for refusal in summary.refused {
                    print("  line \(refusal.line)\(refusal.username.map { " (\($0))" } ?? ""): \(refusal.reason)")
                }
            }
            if !summary.refused.isEmpty { throw ExitCode(1) }
        }

        /// A decoding error in a line, without the line's content.
        static func describe(_ error: any Error) -> String {
            switch error {
            case DecodingError.keyNotFound(let key, _): "\(key.stringValue) is missing"
            case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
                "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type"
            case DecodingError.dataCorrupted: "not JSON"
            default: "not JSON"
            }
        }
    }
}
