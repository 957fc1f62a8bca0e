import Foundation
import TesseraCore
import TesseraDomain
import TesseraRecords

/// The services' logos as their `logo_uri` gave them: fetched by the server (through
/// `Outbound`, so never from inside unless the operator allows it) and kept ten minutes,
/// a failure five, so that a login page shows a service's logo from this server
/// (`img-src 'self'`) without asking the service's host on every page. Callers that ask
/// while a fetch is on its way wait for that one: one fetch per address at a time.
actor ServiceLogos {
    struct Logo: Sendable {
        let type: String
        let bytes: Data
    }

    private struct Entry {
        let logo: Logo?
        let until: Date
    }

    private var entries: [String: Entry] = [:]
    private var fetching: [String: Task<Logo?, Never>] = [:]
    private let capacity = 512

    /// The logo at `uri`, or nil when it cannot be had or is no image the page may show.
    func logo(_ uri: String, http: some OutboundHTTP & Sendable) async -> Logo? {
        let now = Date()
        if let entry = entries[uri], entry.until > now { return entry.logo }
        if let running = fetching[uri] { return await running.value }
        let task = Task<Logo?, Never> {
            guard let answer = try? await http.get(uri, accept: "image/png, image/jpeg, image/webp, image/svg+xml"), answer.status == 200,
                let type = Self.imageType(answer.body)
            else { return nil }
            return Logo(type: type, bytes: answer.body)
        }
        fetching[uri] = task
        let logo = await task.value
        fetching[uri] = nil
        if entries.count >= capacity { entries = entries.filter { $0.value.until > now } }
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.until < $1.value.until })?.key { entries[oldest] = nil }
        entries[uri] = Entry(logo: logo, until: Date().addingTimeInterval(logo == nil ? 300 : 600))
        return logo
    }

    /// The image's media type from its first bytes (not the sender's word for it): PNG,
    /// JPEG, WebP or SVG; nil for anything else.
    static func imageType(_ bytes: Data) -> String? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.count > 12, bytes.starts(with: Array("RIFF".utf8)), bytes.dropFirst(8).starts(with: Array("WEBP".utf8)) { return "image/webp" }
        if String(decoding: bytes.prefix(4096), as: UTF8.self).range(of: "<svg", options: .caseInsensitive) != nil {
            return "image/svg+xml"
        }
        return nil
    }
}

/// The tenants' logos, read from the store once per upload (an upload changes the digest
/// the key holds) and answered from memory after that.
actor TenantLogos {
    private var entries: [String: ServiceLogos.Logo] = [:]
    private let capacity = 256

    func logo(of tenant: TenantRecord, domain: Domain) async throws -> ServiceLogos.Logo? {
        guard let digest = tenant.branding?.logoDigest else { return nil }
        let key = "\(tenant.id.rawValue) \(digest)"
        if let logo = entries[key] { return logo }
        guard let found = try await domain.logo(of: tenant) else { return nil }
        let logo = ServiceLogos.Logo(type: found.type, bytes: found.bytes)
        if entries.count >= capacity { entries.removeAll() }
        entries[key] = logo
        return logo
    }
}
