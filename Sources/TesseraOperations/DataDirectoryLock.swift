import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock (flock) on a data directory's `tessera.lock`: every running server
/// holds it shared, `tessera rekey` holds it alone, so a rekey and a server never run on
/// one data directory at once. The kernel drops it when the process ends, however it ends.
public final class DataDirectoryLock: Sendable {
    private let descriptor: Mutex<Int32>

    private init(descriptor: Int32) {
        self.descriptor = Mutex(descriptor)
    }

    deinit { release() }

    /// Drops the lock (once; later calls do nothing).
    public func release() {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            close(descriptor)
            descriptor = -1
        }
    }

    public enum Mode: Sendable {
        /// A server: any number at once.
        case serving
        /// `tessera rekey`: nothing else.
        case rekeying
    }

    /// Takes the lock without waiting, or throws a `ServerStartupError` that says who holds it.
    public static func take(_ mode: Mode, in directory: DataDirectory) throws -> DataDirectoryLock {
        let path = directory.lockPath
        // A server only reads the (empty, world-readable) file, so one whose user did not
        // create it can lock it too; rekey opens it for writing (flock over NFS needs that
        // for an exclusive lock).
        let access = mode == .serving ? O_RDONLY : O_RDWR
        var descriptor = open(path, access | O_CLOEXEC)
        if descriptor < 0 && errno == ENOENT {
            descriptor = open(path, access | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if descriptor >= 0 {
                fchmod(descriptor, 0o644)  // whatever the umask
            } else if errno == EEXIST {
                descriptor = open(path, access | O_CLOEXEC)
            } else if mode == .serving && (errno == EROFS || errno == EACCES) {
                // A data directory the server may not write to (mounted read-only, with the
                // master key in place) cannot be rekeyed either: nothing to guard against.
                return DataDirectoryLock(descriptor: -1)
            }
        }
        guard descriptor >= 0 else {
            throw ServerStartupError("cannot open \(path): \(DataDirectory.lastError())")
        }
        let operation = (mode == .serving ? LOCK_SH : LOCK_EX) | LOCK_NB
        var result: Int32
        repeat { result = flock(descriptor, operation) } while result != 0 && errno == EINTR
        guard result == 0 else {
            let reason = errno
            close(descriptor)
            guard reason == EWOULDBLOCK else {
                throw ServerStartupError("cannot lock \(path): \(DataDirectory.lastError(reason))")
            }
            switch mode {
            case .serving:
                throw ServerStartupError("a tessera rekey is running on \(directory.path): start the server when it has finished")
            case .rekeying:
                throw ServerStartupError("a tessera serve is running on \(directory.path): stop every node before tessera rekey")
            }
        }
        return DataDirectoryLock(descriptor: descriptor)
    }
}

extension DataDirectory {
    public var lockPath: String { path + "/tessera.lock" }
}
