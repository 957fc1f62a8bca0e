import Foundation
import Synchronization
import TesseraCrypto

/// The login page, rendered once per shape and kept: everything on it but its request's
/// id, match code, expiry and QR code is the same for every login of one service in one
/// tenant's look and language, and rendering it from the templates is most of what the
/// page costs (each name the template asks for is two dynamic casts in the renderer).
///
/// A shell is the page rendered with markers in the places of those four values, cut at
/// the markers: per request, the pieces are joined around the values. The markers are
/// letters and digits with a part drawn at random when the server starts, so escaping
/// for HTML and for a URL's query leaves them whole and no tenant's text can hold one.
/// `Pages.login` fills a shell only where that gives the page the full rendering gives
/// (`LoginPageShellTests` compares the two).
final class LoginPageShells: Sendable {
    static let shared = LoginPageShells()

    /// At most this many shapes are kept; a full cache starts again empty (a shape is
    /// rendered again at its next login).
    static let capacity = 512

    /// The values that differ from one login to the next.
    enum Hole: Character, Sendable {
        case requestID = "r"
        case matchCode = "m"
        case expiresAt = "e"
        case qr = "q"
    }

    /// Starts every marker: letters and digits, 128 bits of them drawn at start.
    static let marker: String = "tesserahole" + (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()

    /// The marker that stands in the rendered shape for `hole`.
    static func marker(_ hole: Hole) -> String { marker + String(hole.rawValue) + "z" }

    /// Whether `requestID` may fill the shells: only the base64url alphabet, which HTML and
    /// URL-query escaping leave as it is, so the id written once reads as the full
    /// rendering writes it in each place (a text, a URL, a query value).
    static func fits(requestID: String) -> Bool {
        !requestID.isEmpty && Base64URL.isURLSafe(requestID)
    }

    /// A rendered shape cut at its markers: `pieces` has one more element than `holes`.
    struct Shell: Sendable {
        let pieces: [String]
        let holes: [Hole]
        let length: Int

        /// The page with this login's values in the holes; `matchCode` is escaped as the
        /// template escapes it, the QR code's SVG goes in as drawn.
        func filled(requestID: String, matchCode: String?, expiresAt: Int, qr: String) -> String {
            var page = ""
            page.reserveCapacity(length + qr.utf8.count + 16 * holes.count * (requestID.utf8.count + 1))
            for (piece, hole) in zip(pieces, holes) {
                page += piece
                switch hole {
                case .requestID: page += requestID
                case .matchCode: page += Pages.escape(matchCode ?? "")
                case .expiresAt: page += String(expiresAt)
                case .qr: page += qr
                }
            }
            page += pieces[pieces.count - 1]
            return page
        }

        /// Cuts `rendered` at its markers; nil when it holds a marker of no known hole.
        init?(_ rendered: String) {
            var pieces: [String] = []
            var holes: [Hole] = []
            var rest = Substring(rendered)
            let marker = LoginPageShells.marker
            while let found = rest.range(of: marker) {
                pieces.append(String(rest[..<found.lowerBound]))
                let after = rest[found.upperBound...]
                guard let kind = after.first, let hole = Hole(rawValue: kind), after.dropFirst().first == "z" else { return nil }
                holes.append(hole)
                rest = after.dropFirst(2)
            }
            pieces.append(String(rest))
            self.pieces = pieces
            self.holes = holes
            length = pieces.reduce(0) { $0 + $1.utf8.count }
        }
    }

    private let shells = Mutex<[Pages.LoginShape: Shell]>([:])

    /// The shell of `shape`: kept, or made by `render` (the page rendered with the markers)
    /// and kept. Nil when the rendering cannot be cut (the caller renders in full).
    func shell(for shape: Pages.LoginShape, render: () -> String) -> Shell? {
        if let kept = shells.withLock({ $0[shape] }) { return kept }
        guard let made = Shell(render()) else { return nil }
        shells.withLock { shells in
            if shells.count >= Self.capacity { shells.removeAll(keepingCapacity: true) }
            shells[shape] = made
        }
        return made
    }
}
