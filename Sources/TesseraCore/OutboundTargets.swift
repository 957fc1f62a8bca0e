#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// An IP address the server might send to, as the system's resolver gave it.
public enum OutboundAddress: Sendable, Hashable, CustomStringConvertible {
    case v4([UInt8])
    case v6([UInt8])

    /// Not on the internet: loopback, private, shared (carrier-grade NAT), link-local,
    /// unspecified, multicast, reserved, documentation and protocol-assignment ranges (IANA's
    /// special-purpose registries). IPv6 is on the internet only in 2000::/3 outside
    /// 2001::/23 and 2001:db8::/32; an IPv6 form that carries an IPv4 address (mapped,
    /// NAT64, 6to4) is judged by that address.
    public var isInternal: Bool {
        switch self {
        case .v4(let b):
            guard b.count == 4 else { return true }
            switch (b[0], b[1], b[2]) {
            case (0, _, _), (10, _, _), (127, _, _), (169, 254, _), (192, 168, _): return true
            case (172, 16...31, _), (100, 64...127, _), (198, 18...19, _): return true
            case (192, 0, 0), (192, 0, 2), (198, 51, 100), (203, 0, 113): return true
            case (224...255, _, _): return true
            default: return false
            }
        case .v6(let b):
            guard b.count == 16 else { return true }
            let embedded = OutboundAddress.v4(Array(b[12..<16]))
            // ::ffff:0:0/96, IPv4-mapped, and 64:ff9b::/96, NAT64: the IPv4 address carried.
            if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff { return embedded.isInternal }
            if b[0..<4] == [0x00, 0x64, 0xff, 0x9b] && b[4..<12].allSatisfy({ $0 == 0 }) { return embedded.isInternal }
            // 2002::/16, 6to4: the IPv4 address in its next 32 bits.
            if b[0] == 0x20 && b[1] == 0x02 { return OutboundAddress.v4(Array(b[2..<6])).isInternal }
            // Global unicast is 2000::/3; 2001::/23 (protocol assignments, Teredo) and
            // 2001:db8::/32 (documentation) within it are not reachable either.
            guard b[0] & 0xe0 == 0x20 else { return true }
            if b[0] == 0x20 && b[1] == 0x01 && b[2] <= 0x01 { return true }
            return b[0..<4] == [0x20, 0x01, 0x0d, 0xb8]
        }
    }

    /// 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        switch self {
        case .v4(let bytes): bytes.first == 127
        case .v6(let bytes): bytes == [UInt8](repeating: 0, count: 15) + [1]
        }
    }

    /// The address in its usual text form (`127.0.0.1`, `::1`).
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch self {
        case .v4(let bytes):
            var address = in_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes.prefix(4)) }
            _ = inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count))
        case .v6(let bytes):
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes.prefix(16)) }
            _ = inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count))
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The targets a tenant admin or a registering client chooses for the server to call
/// (back-channel logout, CIBA pings, identity providers): never this machine or a network
/// behind it, unless the operator allows it (`--allow-private-outbound`, or a server whose
/// own public URL is on the loopback, as in development). Targets the operator configures
/// (push gateway, APNs) are not held to this.
///
/// A registration is checked on what its URL says (a name such as `localhost`, an address
/// literal read as the resolver reads it); a call is checked on every address its host
/// resolves to, and connects to the one checked (`resolve`), so a name that resolves
/// elsewhere later gains nothing.
public enum OutboundTargets {
    /// The host of a URL as an HTTP client connects to it: without IPv6 brackets. Nil when
    /// the URL has none.
    public static func host(of url: String) -> String? {
        guard let host = URL(string: url)?.host, !host.isEmpty else { return nil }
        return host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// Why `url` may not be such a target (a sentence for a 400), or nil when it may. Only
    /// what the URL itself says; names are resolved when the call is made.
    public static func refusal(_ url: String, allowsPrivate: Bool) -> String? {
        guard !allowsPrivate else { return nil }
        guard let host = host(of: url) else { return "it names no host" }
        if host.contains("%") { return "its host is percent-encoded" }
        if isLocalhost(host) { return "it names this machine (localhost)" }
        if let inside = literal(host)?.first(where: \.isInternal) { return "it is a loopback, private or link-local address (\(inside))" }
        return nil
    }

    /// Whether a host name is `localhost` or a name below it (RFC 6761), in any case, with
    /// or without the final dot.
    public static func isLocalhost(_ host: String) -> Bool {
        let lower = host.lowercased()
        let name = lower.hasSuffix(".") ? String(lower.dropLast()) : lower
        return name == "localhost" || name.hasSuffix(".localhost")
    }

    /// The address a host literal stands for, read as the system's resolver reads it
    /// (`127.1`, `2130706433`, `0177.0.0.1` and `0x7f.1` are all 127.0.0.1); nil for a
    /// name. Looks nothing up.
    public static func literal(_ host: String) -> [OutboundAddress]? {
        try? addresses(host, numericOnly: true)
    }

    /// Every address `host` resolves to, from the system's resolver on a thread of its own
    /// (getaddrinfo blocks), within `timeout`: the thread may finish later, and its answer
    /// is dropped then.
    public static func resolve(_ host: String, timeout: TimeInterval = 5) async throws -> [OutboundAddress] {
        try await withCheckedThrowingContinuation { continuation in
            let answered = Locked(false)
            let answer: @Sendable (Result<[OutboundAddress], any Error>) -> Void = { result in
                let first = answered.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(with: result) }
            }
            let timer = Task {
                try await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
                answer(.failure(ResolutionError(description: "\(host) did not resolve within \(timeout) s")))
            }
            let thread = Thread {
                answer(Result { try addresses(host, numericOnly: false) })
                timer.cancel()
            }
            thread.name = "tessera-resolver"
            thread.start()
        }
    }

    public struct ResolutionError: Error, CustomStringConvertible {
        public let description: String
    }

    static func addresses(_ host: String, numericOnly: Bool) throws -> [OutboundAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        if numericOnly { hints.ai_flags = AI_NUMERICHOST }
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw ResolutionError(description: "\(host) does not resolve (\(String(cString: gai_strerror(status))))")
        }
        defer { freeaddrinfo(first) }
        var found: [OutboundAddress] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            if let address = entry.pointee.ai_addr {
                switch entry.pointee.ai_family {
                case AF_INET:
                    let bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                    }
                    found.append(.v4(bytes))
                case AF_INET6:
                    let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                    }
                    found.append(.v6(bytes))
                default:
                    break
                }
            }
            next = entry.pointee.ai_next
        }
        guard !found.isEmpty else { throw ResolutionError(description: "\(host) has no IP address") }
        var seen = Set<OutboundAddress>()
        return found.filter { seen.insert($0).inserted }
    }
}
