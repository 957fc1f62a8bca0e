import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// systemd's readiness protocol (sd_notify(3)): with `Type=notify`, the service manager
/// hands the process a datagram socket in `NOTIFY_SOCKET` and waits for `READY=1` before
/// it counts the service as started (and starts what depends on it); `STOPPING=1` says a
/// shutdown began. Without the variable (not under systemd) nothing is sent. A path that
/// starts with `@` names a socket in the abstract namespace.
enum SystemdNotify {
    /// Sends `state` (lines of `KEY=value`); false when there is no socket or it failed.
    @discardableResult
    static func send(_ state: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        #if canImport(Glibc)
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return false }
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                sendto(descriptor, message, message.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), socketAddress, length)
            }
        }
        return sent == message.count
        #else
        return false
        #endif
    }
}
