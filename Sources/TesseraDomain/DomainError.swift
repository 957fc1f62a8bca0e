import Foundation
import TesseraCore

/// The one error a use case throws: what went wrong (`kind`), a stable machine-readable
/// `code`, and a description written for the caller.
///
/// The codes are the OAuth error codes the protocols already speak (`invalid_grant`,
/// `invalid_token`, …) plus Tessera's own (`request_claimed`, `account_locked`, …): a
/// client may branch on them, so they never change. The description never carries a
/// secret or says which factor failed; details belong in the request log. Only the edge
/// (TesseraServer) turns a `kind` into an HTTP status.
public struct DomainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure, from which the edge picks its status.
    public enum Kind: Sendable, Equatable {
        /// The input is malformed or not acceptable (HTTP 400).
        case invalid
        /// The caller did not prove who it is (HTTP 401).
        case unauthenticated
        /// The caller is known but may not do this (HTTP 403).
        case forbidden
        /// The object does not exist, or not for this caller (HTTP 404).
        case notFound
        /// The object's state forbids the change (HTTP 409).
        case conflict
        /// The activation is locked after failed attempts (HTTP 423).
        case locked
        /// The input is larger than allowed (HTTP 413).
        case tooLarge
        /// The server could not do its part (HTTP 500); the description stays generic.
        case `internal`
        /// Another server this one relies on (an external identity provider) failed or
        /// could not be reached (HTTP 502).
        case upstream
    }

    /// A stable error code.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let invalidRequest = Code("invalid_request")
        public static let invalidGrant = Code("invalid_grant")
        public static let invalidToken = Code("invalid_token")
        public static let invalidClient = Code("invalid_client")
        public static let invalidScope = Code("invalid_scope")
        public static let unauthorizedClient = Code("unauthorized_client")
        public static let accessDenied = Code("access_denied")
        public static let expiredToken = Code("expired_token")
        public static let authorizationPending = Code("authorization_pending")
        public static let slowDown = Code("slow_down")
        public static let unknownUserID = Code("unknown_user_id")
        public static let notFound = Code("not_found")
        public static let conflict = Code("conflict")
        public static let requestClaimed = Code("request_claimed")
        public static let accountLocked = Code("account_locked")
        public static let serverError = Code("server_error")
    }

    public let kind: Kind
    public let code: Code
    public let message: String
    /// With `account_locked` and a lockout: the lock the activation is under.
    public let lockout: LockoutInformation?

    public init(_ kind: Kind, _ code: Code, _ message: String, lockout: LockoutInformation? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.lockout = lockout
    }

    public var description: String { "\(code): \(message)" }

    public static func invalidRequest(_ message: String) -> DomainError { .init(.invalid, .invalidRequest, message) }
    public static func invalidGrant(_ message: String) -> DomainError { .init(.invalid, .invalidGrant, message) }
    public static func invalidToken(_ message: String) -> DomainError { .init(.unauthenticated, .invalidToken, message) }
    public static func notFound(_ what: String) -> DomainError { .init(.notFound, .notFound, "\(what) does not exist") }
    public static func conflict(_ message: String) -> DomainError { .init(.conflict, .conflict, message) }
    public static func requestClaimed(_ message: String) -> DomainError { .init(.conflict, .requestClaimed, message) }

    /// A call made while the activation is locked (the *pending* lockout): no factor was
    /// checked, nothing was counted.
    public static func pendingLockout(_ information: LockoutInformation) -> DomainError {
        DomainError(
            .locked, .accountLocked,
            information.isPermanent
                ? "this activation is locked permanently; an administrator must unlock it"
                : "this activation is locked after failed attempts; try again later",
            lockout: information)
    }
}
