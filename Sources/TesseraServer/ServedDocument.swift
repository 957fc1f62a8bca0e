import Foundation
import TesseraAdminAPI
import Yams

/// The OpenAPI document as the server serves it at `/openapi.json`: `openapi.yaml` read
/// once, at start-up, and written as JSON.
enum ServedDocument {
    static let json: Data = {
        do {
            guard let document = try Yams.load(yaml: APIDocument.yaml) else { preconditionFailure("openapi.yaml is empty") }
            return try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
        } catch {
            // openapi.yaml is part of the build, and the suite reads it: this is a build defect.
            preconditionFailure("openapi.yaml is not a valid document: \(error)")
        }
    }()
}
