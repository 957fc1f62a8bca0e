import Foundation
import Synchronization
import TesseraCore
import TesseraKit

/// A device for tests: a file key store and a software biometric gate in a fresh
/// directory, and a transport that remembers what it sent.
public struct TestDevice: Sendable {
    public let directory: URL
    public let keyStore: FileKeyStore
    public let biometrics: SoftwareBiometricGate
    public let transport: RecordingTransport

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-device-\(UUID().uuidString)")
        keyStore = try FileKeyStore(directory: directory)
        biometrics = SoftwareBiometricGate(stateFile: directory.appendingPathComponent("biometric-state"))
        transport = RecordingTransport()
    }

    public var personalizer: Personalizer { Personalizer(keyStore: keyStore, transport: transport, biometrics: biometrics) }
    public var authenticator: Authenticator { Authenticator(keyStore: keyStore, transport: transport, biometrics: biometrics) }

    public func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// Sends through URLSession and keeps every request, so a test can replay one, and every
/// answer, so a test can check it against the OpenAPI document.
public final class RecordingTransport: HTTPTransport {
    private let inner = URLSessionTransport()
    private let sent = Mutex<[HTTPRequestData]>([])
    private let answered = Mutex<[(request: HTTPRequestData, response: HTTPResponseData)]>([])

    public init() {}

    public func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
        sent.withLock { $0.append(request) }
        let response: HTTPResponseData
        do {
            response = try await inner.send(request)
        } catch TesseraKitError.transport(let reason) where request.method == "GET" && reason.contains("-1001") {
            // FoundationNetworking's URLSession on Linux now and then leaves a request
            // without an answer until its 30 s timeout when the whole suite loads the
            // machine (once in a full run, a GET that passes alone every time). A GET
            // changes nothing on the server, so it is sent once more; anything else
            // fails the test as it is.
            response = try await inner.send(request)
        }
        answered.withLock { $0.append((request, response)) }
        return response
    }

    public var requests: [HTTPRequestData] { sent.withLock { $0 } }

    /// Every exchange that got an answer, in order.
    public var exchanges: [(request: HTTPRequestData, response: HTTPResponseData)] { answered.withLock { $0 } }
}
