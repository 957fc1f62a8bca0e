import Foundation
import TesseraAdminAPI
import TesseraDomain
import Yams

/// The OpenAPI document (`openapi.yaml`), read once at start-up: served as JSON at
/// `/openapi.json`, and the source of what each admin operation needs of its caller.
enum ServedDocument {
    /// The document parsed once, and the two values made of it.
    private static let loaded: (json: Data, requirements: [String: Requirement]) = {
        let document = Self.document()
        do {
            let json = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
            return (json, requirements(of: document))
        } catch {
            preconditionFailure("openapi.yaml cannot be written as JSON: \(error)")
        }
    }()

    private static func document() -> [String: Any] {
        do {
            guard let document = try Yams.load(yaml: APIDocument.yaml) as? [String: Any] else {
                preconditionFailure("openapi.yaml is not a mapping")
            }
            return document
        } catch {
            // openapi.yaml is part of the build, and the suite reads it: this is a build defect.
            preconditionFailure("openapi.yaml is not a valid document: \(error)")
        }
    }

    static var json: Data { loaded.json }

    /// What an admin operation needs: its role (`x-tessera-need`), whether the caller
    /// must reach every tenant (`x-tessera-global`), and the largest body it takes
    /// (`x-tessera-body-limit`, bytes; default `RequestDecoding.maximumBodySize`).
    struct Requirement: Sendable, Equatable {
        let need: AdminCaller.Need
        let global: Bool
        var bodyLimit = RequestDecoding.maximumBodySize
        /// Its body is bytes (an image), not JSON: its media type chooses how it is read.
        var binaryBody = false
    }

    /// Every operation tagged `admin`, by `operationId`. An admin operation that does not say
    /// what it needs is a defect of the document, found when the server starts.
    static var adminRequirements: [String: Requirement] { loaded.requirements }

    private static func requirements(of document: [String: Any]) -> [String: Requirement] {
        var requirements: [String: Requirement] = [:]
        for case let (path, item as [String: Any]) in document["paths"] as? [String: Any] ?? [:] {
            for case let (method, operation as [String: Any]) in item {
                guard (operation["tags"] as? [String])?.contains("admin") == true else { continue }
                guard let id = operation["operationId"] as? String else {
                    preconditionFailure("openapi.yaml: \(method) \(path) has no operationId")
                }
                let need: AdminCaller.Need =
                    switch operation["x-tessera-need"] as? String {
                    case "read": .read
                    case "support": .support
                    case "manage": .manage
                    default: preconditionFailure("openapi.yaml: \(id) does not say what it needs (x-tessera-need)")
                    }
                let content = ((operation["requestBody"] as? [String: Any])?["content"] as? [String: Any]) ?? [:]
                requirements[id] = Requirement(
                    need: need, global: operation["x-tessera-global"] as? Bool ?? false,
                    bodyLimit: operation["x-tessera-body-limit"] as? Int ?? RequestDecoding.maximumBodySize,
                    binaryBody: !content.isEmpty && content["application/json"] == nil)
            }
        }
        return requirements
    }
}
