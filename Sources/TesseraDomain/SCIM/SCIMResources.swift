import Crypto
import Foundation
import Logging
import TesseraCore
import TesseraCrypto
import TesseraRecords

/// One kind of SCIM resource of a tenant (`Users`, `Groups`) as the endpoint serves it:
/// every call checks the caller's right to provision the tenant.
public protocol SCIMResourceSet: Sendable {
    /// The resource's name in its URL (`Users`).
    static var endpoint: String { get }
    func get(_ id: String) async throws -> [String: SCIMValue]
    func list(_ query: SCIMListQuery) async throws -> SCIMValue
    func create(_ body: SCIMValue, logger: Logger) async throws -> [String: SCIMValue]
    /// `PUT`: the resource replaced (`If-Match` must name its version when given).
    func replace(_ id: String, _ body: SCIMValue, ifMatch: String?, logger: Logger) async throws -> [String: SCIMValue]
    /// `PATCH`: the operations applied to the resource, which is then written as a replacement.
    func patch(_ id: String, _ request: SCIMPatch.Request, ifMatch: String?, logger: Logger) async throws -> [String: SCIMValue]
    func delete(_ id: String, logger: Logger) async throws
}

/// What SCIM resources share: their `meta`, versions and refusals.
public enum SCIMResource {
    static func invalid(_ message: String, _ code: DomainError.Code = SCIMError.invalidValue) -> DomainError {
        DomainError(.invalid, code, message)
    }

    static func timestamp(_ seconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    }

    /// A weak ETag over the resource without its `meta`.
    static func version(of resource: [String: SCIMValue]) -> String {
        var content = resource
        content["meta"] = nil
        let data = Data(((try? JSONCoding.string(content)) ?? "").utf8)
        return "W/\"\(Base64URL.encode(Data(SHA256.hash(data: data)).prefix(12)))\""
    }

    /// The resource with its `meta` (its `version` is the ETag).
    static func withMeta(
        _ resource: [String: SCIMValue], type: String, created: Int64, modified: Int64?, location: String
    ) -> [String: SCIMValue] {
        var resource = resource
        resource["meta"] = .object([
            "resourceType": .string(type), "created": .string(timestamp(created)), "lastModified": .string(timestamp(modified ?? created)),
            "location": .string(location), "version": .string(version(of: resource)),
        ])
        return resource
    }

    /// 412 unless `ifMatch` is absent, `*`, or the resource's version.
    static func check(ifMatch: String?, _ resource: [String: SCIMValue], what: String) throws {
        if let ifMatch, ifMatch != "*", resource["meta"]?.member("version")?.string != ifMatch {
            throw DomainError(.conflict, SCIMError.invalidVersion, "the \(what) changed since that version (If-Match)")
        }
    }

    /// A PATCH may not change these attributes (or their sub-attributes) of any resource.
    static func refuseImmutable(_ operations: [SCIMPatch.Operation], _ names: [String]) throws {
        for operation in operations {
            let target = (operation.path ?? "").lowercased()
            if names.contains(where: { target == $0 || target.hasPrefix($0 + ".") || target.hasPrefix($0 + "[") }) {
                throw invalid("\(operation.path ?? "") cannot be changed", SCIMError.mutability)
            }
        }
    }

    /// A ListResponse (RFC 7644 §3.4.2).
    public static func listResponse(_ resources: [SCIMValue], total: Int, startIndex: Int) -> SCIMValue {
        .object([
            "schemas": .array([.string(SCIMSchemas.listResponse)]), "totalResults": .number(Double(total)),
            "startIndex": .number(Double(startIndex)), "itemsPerPage": .number(Double(resources.count)), "Resources": .array(resources),
        ])
    }
}

/// A list's or search's parameters (RFC 7644 §3.4.2.2–§3.4.2.4, §3.4.3).
public struct SCIMListQuery: Sendable {
    public var filter: String?
    public var startIndex = 1
    public var count = 100
    public var sortBy: String?
    public var descending = false

    /// How many resources a filter other than an exact lookup by an indexed attribute looks through.
    static let maximumScanned = 100_000

    public init(filter: String? = nil, startIndex: Int? = nil, count: Int? = nil, sortBy: String? = nil, sortOrder: String? = nil) {
        self.filter = filter
        self.startIndex = max(1, startIndex ?? 1)
        self.count = min(max(0, count ?? 100), SCIMSchemas.maximumResults)
        self.sortBy = sortBy
        descending = sortOrder?.lowercased() == "descending"
    }

    /// A search at the root (RFC 7644 §3.4.3): every kind of resource, as one list.
    public func search(_ sets: [any SCIMResourceSet]) async throws -> SCIMValue {
        var wide = self
        wide.startIndex = 1
        wide.count = startIndex - 1 + count
        var resources: [SCIMValue] = []
        var total = 0
        for set in sets {
            let answer = try await set.list(wide)
            resources += answer.member("Resources")?.array ?? []
            if case .number(let found)? = answer.member("totalResults") { total += Int(found) }
        }
        if let sortBy, let path = try? SCIMPatchPath.parse(sortBy).attribute {
            func key(_ resource: SCIMValue) -> String { SCIMFilter.values(at: path, in: resource).first?.string?.lowercased() ?? "" }
            resources.sort { descending ? key($0) > key($1) : key($0) < key($1) }
        }
        return SCIMResource.listResponse(Array(resources.dropFirst(startIndex - 1).prefix(count)), total: total, startIndex: startIndex)
    }

    /// The page of `records` that match the filter, after sorting, as a ListResponse.
    /// `content` is a record's resource without `meta` (what filters and sorting read);
    /// `render` makes the resources of the page alone, with their versions.
    func page<Record>(
        _ records: [Record], filter: SCIMFilter?, caseExact: (SCIMAttributePath) -> Bool, content: (Record) -> SCIMValue,
        render: ([Record]) async throws -> [SCIMValue]
    ) async throws -> SCIMValue {
        var rows = records.map { (record: $0, content: content($0)) }
        if let filter { rows = rows.filter { filter.matches($0.content, caseExact: caseExact) } }
        if let sortBy, let path = try? SCIMPatchPath.parse(sortBy).attribute {
            func key(_ resource: SCIMValue) -> String {
                SCIMFilter.values(at: path, in: resource).first?.string?.lowercased() ?? ""
            }
            rows.sort { descending ? key($0.content) > key($1.content) : key($0.content) < key($1.content) }
        }
        let slice = rows.dropFirst(startIndex - 1).prefix(count)
        return SCIMResource.listResponse(try await render(slice.map(\.record)), total: rows.count, startIndex: startIndex)
    }
}
