import Foundation
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import Synchronization
import TesseraOperations
import UnixSignals

/// The built-in TLS's certificate chain and key, read again without a restart: on SIGHUP
/// and when either file changes (looked at every few seconds). Every handshake takes the
/// pair current when it starts (`NIOSSLContextCallback`), so connections already open keep
/// theirs and new ones get the new pair. A pair that does not load (a half-written file,
/// a key that is not the certificate's) is refused with an error in the log, and the
/// server goes on with the pair it has.
final class TLSCertificates: Sendable {
    struct Pair: Sendable {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        /// The files' modification times and sizes when they were read.
        let stamp: [String]
    }

    let files: ServerConfiguration.TLSFiles
    private let current: Mutex<Pair>

    init(_ files: ServerConfiguration.TLSFiles) throws {
        self.files = files
        current = Mutex(try Self.load(files))
    }

    static func stamp(_ files: ServerConfiguration.TLSFiles) -> [String] {
        [files.certificateChain, files.privateKey].map { path in
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(modified):\(attributes?[.size] as? Int ?? -1)"
        }
    }

    static func load(_ files: ServerConfiguration.TLSFiles) throws -> Pair {
        let stamp = Self.stamp(files)
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(files.certificateChain)
            key = try NIOSSLPrivateKey(file: files.privateKey, format: .pem)
        } catch {
            throw ServerStartupError("cannot load the TLS certificate or key: \(error)")
        }
        guard !chain.isEmpty else { throw ServerStartupError("\(files.certificateChain) holds no certificate") }
        // The key must be the certificate's, or every handshake would fail: a context
        // made of the pair is refused otherwise (BoringSSL compares them).
        do {
            _ = try NIOSSLContext(
                configuration: .makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)))
        } catch {
            throw ServerStartupError("the TLS key \(files.privateKey) is not the key of the certificate in \(files.certificateChain): \(error)")
        }
        return Pair(chain: chain, key: key, stamp: stamp)
    }

    /// The server's TLS configuration: the pair loaded at start, and each handshake's
    /// pair from `current`.
    func serverConfiguration() -> TLSConfiguration {
        let pair = current.withLock { $0 }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: pair.chain.map { .certificate($0) }, privateKey: .privateKey(pair.key))
        // TLS 1.0 and 1.1 are deprecated (RFC 8996).
        configuration.minimumTLSVersion = .tlsv12
        configuration.sslContextCallback = { [self] _, promise in
            let pair = current.withLock { $0 }
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = pair.chain.map { .certificate($0) }
            override.privateKey = .privateKey(pair.key)
            promise.succeed(override)
        }
        return configuration
    }

    /// Reads the files again when `force`, or when they changed since the last read;
    /// whether a new pair is in use.
    @discardableResult
    func reload(force: Bool, logger: Logger) -> Bool {
        let known = current.withLock { $0.stamp }
        guard force || Self.stamp(files) != known else { return false }
        do {
            let pair = try Self.load(files)
            current.withLock { $0 = pair }
            logger.notice("TLS certificate loaded", metadata: ["certificate": "\(files.certificateChain)"])
            return true
        } catch {
            // Not tried again until the files change once more (or the next SIGHUP).
            current.withLock { $0 = Pair(chain: $0.chain, key: $0.key, stamp: Self.stamp(files)) }
            logger.error("TLS certificate not loaded; the previous one stays", metadata: ["error": "\(error)"])
            return false
        }
    }
}

/// Reloads the TLS pair on SIGHUP (when the server handles signals) and when the files
/// change, until shutdown.
struct TLSReloader: Service {
    let certificates: TLSCertificates
    let handlingSignals: Bool
    /// Between looks at the files; nil: on SIGHUP only.
    let interval: Duration?
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                if handlingSignals {
                    group.addTask {
                        for await _ in await UnixSignalsSequence(trapping: .sighup) {
                            certificates.reload(force: true, logger: logger)
                        }
                    }
                }
                if let interval {
                    group.addTask {
                        while (try? await Task.sleep(for: interval)) != nil {
                            certificates.reload(force: false, logger: logger)
                        }
                    }
                }
                // Nothing to do (no signals, no watch): wait for the shutdown like the others.
                group.addTask { try? await gracefulShutdown() }
            }
        }
    }
}
