import Foundation
import TesseraCore
import TesseraKit

/// How a step-up ended, one type for every way (VeridiumID's response object): the
/// request, where it stands, and what the login gave or why it failed.
public struct StepUpResponse: Sendable {
    /// The step-up the app's server named.
    public let sessionID: String
    /// `authenticated` when this device approved it; `canceled` when the user cancelled or
    /// declined; otherwise where the request stood (`ongoingOnAnotherDevice`, `timeout`, …).
    public let status: PendingRequestStatus
    /// The approved login (on `didFinish` after this device signed it).
    public let login: UserLoginResult?
    /// Why it failed (on `didFail`): a `TesseraKitError` (a lockout is `pendingLockout`) or the transport's.
    public let error: (any Error)?
}

/// What a `StepUp` tells its delegate, on the main actor, once per `start`.
@MainActor
public protocol StepUpDelegate: AnyObject {
    /// The request was answered: approved here (`status` `authenticated`), or it had already
    /// ended elsewhere.
    func stepUp(_ stepUp: StepUp, didFinish response: StepUpResponse)
    /// The user cancelled (a prompt, or `cancel()`): the request was declined.
    func stepUp(_ stepUp: StepUp, didCancel response: StepUpResponse)
    /// It could not be answered: a wrong factor (a lockout), the network, the key store.
    func stepUp(_ stepUp: StepUp, didFail response: StepUpResponse)
}

/// A push step-up with a delegate, as VeridiumID's SDK runs one: `start` claims the request
/// the app's server named, asks `factors` for what the service's policy wants, finishes it,
/// and tells the delegate. A factor supplier that throws `TesseraKitError.cancelled` (the
/// user closed the prompt) declines the request and calls `didCancel`.
///
/// ```swift
/// let stepUp = StepUp(authenticator: authenticator, delegate: self)
/// stepUp.start(sessionID: sessionFromPush) { info in
///     [DeviceFactor(), PinFactor(try await askForPIN())]   // askForPIN throws .cancelled on Cancel
/// }
/// ```
@MainActor
public final class StepUp {
    public weak var delegate: (any StepUpDelegate)?
    private let authenticator: Authenticator
    private var running: Task<Void, Never>?
    private var claimed: AuthenticationUserInformation?
    private var sessionID = ""

    public init(authenticator: Authenticator, delegate: (any StepUpDelegate)? = nil) {
        self.authenticator = authenticator
        self.delegate = delegate
    }

    /// Answers the step-up `sessionID` (a CIBA `auth_req_id` or pending request id).
    public func start(
        sessionID: String, issuer: String? = nil,
        factors: @escaping @Sendable (AuthenticationUserInformation) async throws -> [any AuthenticationFactor]
    ) {
        running?.cancel()
        self.sessionID = sessionID
        running = Task { [authenticator] in
            let response = { (status: PendingRequestStatus, login: UserLoginResult?, error: (any Error)?) in
                StepUpResponse(sessionID: sessionID, status: status, login: login, error: error)
            }
            do {
                switch try await authenticator.authenticate(sessionID: sessionID, issuer: issuer) {
                case .ended(let status):
                    finish(.finished, response(status, nil, nil))
                case .sign(var information):
                    claimed = information
                    let chosen: [any AuthenticationFactor]
                    do {
                        chosen = try await factors(information)
                    } catch TesseraKitError.cancelled {
                        try? await authenticator.deny(information)
                        claimed = nil
                        return finish(.cancelled, response(.canceled, nil, TesseraKitError.cancelled))
                    }
                    for factor in chosen { try information.sign(factor: factor) }
                    let result = try await authenticator.finish(information)
                    claimed = nil
                    switch result {
                    case .userLogin(let login):
                        finish(.finished, response(.authenticated, login, nil))
                    case .lockout(let lockout, _):
                        finish(.failed, response(.failed, nil, TesseraKitError.pendingLockout(lockout)))
                    default:
                        finish(.failed, response(.failed, nil, TesseraKitError.wrongProcess("the request was no login")))
                    }
                }
            } catch is CancellationError {
                // `cancel()` told the delegate already.
            } catch {
                claimed = nil
                finish(.failed, response(.failed, nil, error))
            }
        }
    }

    /// The user cancels: a claimed request is declined, and the delegate hears `didCancel`.
    public func cancel() {
        guard let task = running else { return }
        task.cancel()
        running = nil
        let declined = claimed
        claimed = nil
        if let declined { Task { [authenticator] in try? await authenticator.deny(declined) } }
        delegate?.stepUp(self, didCancel: StepUpResponse(sessionID: sessionID, status: .canceled, login: nil, error: TesseraKitError.cancelled))
    }

    private enum Ending { case finished, cancelled, failed }

    private func finish(_ ending: Ending, _ response: StepUpResponse) {
        guard !Task.isCancelled else { return }
        running = nil
        switch ending {
        case .finished: delegate?.stepUp(self, didFinish: response)
        case .cancelled: delegate?.stepUp(self, didCancel: response)
        case .failed: delegate?.stepUp(self, didFail: response)
        }
    }
}
