import Foundation
import TesseraDomain

/// The services' logos as their `logo_uri` gave them: fetched by the server (through
/// `Outbound`, so never from inside unless the operator allows it) and kept ten minutes,
/// a failure five, so that a login page shows a service's logo from this server
/// (`img-src 'self'`) without asking the service's host on every page.
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
    private let capacity = 512

    /// The logo at `uri`, or nil when it cannot be had or is no image the page may show.
    func logo(_ uri: String, http: some OutboundHTTP) async -> Logo? {
        let now = Date()
        if let entry = entries[uri], entry.until > now { return entry.logo }
        let logo: Logo? =
            if let answer = try? await http.get(uri), answer.status == 200, let type = Self.imageType(answer.body) {
                Logo(type: type, bytes: answer.body)
            } else {
                nil
            }
        if entries.count >= capacity { entries = entries.filter { $0.value.until > now } }
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.until < $1.value.until })?.key { entries[oldest] = nil }
        entries[uri] = Entry(logo: logo, until: now.addingTimeInterval(logo == nil ? 300 : 600))
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
