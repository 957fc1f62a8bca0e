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

/// Sends through `ClientTransport` and keeps every request, so a test can replay one, and
/// every answer, so a test can check it against the OpenAPI document.
public final class RecordingTransport: HTTPTransport {
    private let inner = ClientTransport()
    private let sent = Mutex<[HTTPRequestData]>([])
    private let answered = Mutex<[(request: HTTPRequestData, response: HTTPResponseData)]>([])

    public init() {}

    public func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
        sent.withLock { $0.append(request) }
        let response = try await inner.send(request)
        answered.withLock { $0.append((request, response)) }
        return response
    }

    public var requests: [HTTPRequestData] { sent.withLock { $0 } }

    /// Every exchange that got an answer, in order.
    public var exchanges: [(request: HTTPRequestData, response: HTTPResponseData)] { answered.withLock { $0 } }
}
