import Foundation

/// How a service's backchannel request stands, as one device sees it (the outcomes of
/// a push step-up: authenticated, ongoing on another device, canceled, failed, timeout).
public enum PendingRequestStatus: String, Codable, Sendable, CaseIterable {
    /// Waiting for this device (or any device of the user) to answer.
    case pending
    /// This device approved it.
    case authenticated
    /// Another device of the user has taken it up or answered it.
    case ongoingOnAnotherDevice = "ongoing_on_another_device"
    /// The user declined it.
    case canceled
    /// It ended in a permanent lock.
    case failed
    /// Nobody answered before it expired.
    case timeout
}

/// `GET {issuer}/device/pending`: a request a service started for this device's user.
public struct PendingRequest: Codable, Hashable, Sendable {
    public let requestID: RequestID
    public let service: ServiceInformation
    public let bindingMessage: String?
    /// The user the request is for (the activation's own user or one merged with it).
    public let username: String
    public let userID: UserID
    public let expiresAt: Date
    public let status: PendingRequestStatus

    public init(
        requestID: RequestID, service: ServiceInformation, bindingMessage: String?, username: String, userID: UserID,
        expiresAt: Date, status: PendingRequestStatus
    ) {
        self.requestID = requestID
        self.service = service
        self.bindingMessage = bindingMessage
        self.username = username
        self.userID = userID
        self.expiresAt = expiresAt
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case service, username, status
        case requestID = "request_id"
        case bindingMessage = "binding_message"
        case userID = "user_id"
        case expiresAt = "expires_at"
    }
}

/// The pending list with a version: a long poll that names the version it has returns
/// when the list differs from it (or when its wait is over).
public struct PendingRequestList: Codable, Sendable {
    public let requests: [PendingRequest]
    public let version: String

    public init(requests: [PendingRequest], version: String) {
        self.requests = requests
        self.version = version
    }
}

/// `GET {issuer}/device/authentications/{id}`: where one backchannel request stands for this device.
public struct PendingRequestState: Codable, Sendable {
    public let requestID: RequestID
    public let status: PendingRequestStatus

    public init(requestID: RequestID, status: PendingRequestStatus) {
        self.requestID = requestID
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case status
        case requestID = "request_id"
    }
}

/// `POST {issuer}/device/push`: where this activation wants its wake-up pushes. A push
/// only says "look"; the device then reads `device/pending` with a signed call.
public struct PushRegistration: Codable, Sendable {
    /// `apns` (an APNs device token, hex) or `webhook` (a token the server's push gateway knows).
    public let kind: String
    public let token: String

    public init(kind: String, token: String) {
        self.kind = kind
        self.token = token
    }
}
