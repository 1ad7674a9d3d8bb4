import CCurl

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The sockets curl has open for one loop, so the loop can cork them for a round.
///
/// curl 7.88 writes every HTTP/2 frame with its own TLS record and `send`: a HEADERS frame, then
/// a DATA frame, for every notification. Corked (TCP_CORK) while curl works through a round and
/// uncorked after, those writes leave as full segments: the kernel's per-packet work (on
/// loopback, the receiver's too) is paid per round instead of per frame, and APNs reads fewer,
/// larger chunks. Used only on the loop thread.
final class CurlSockets {
    private(set) var open: Set<Int32> = []
    /// Sockets closed since the loop started: a change means a connection was replaced.
    private(set) var closedCount = 0
    /// Sockets opened since the loop started: a change means a new connection is on its way.
    private(set) var openedCount = 0

    /// Holds back partial segments until `uncork`.
    func cork() { for socket in open { set(socket, 1) } }

    /// Sends what was held back, now.
    func uncork() { for socket in open { set(socket, 0) } }

    fileprivate func opened(_ socket: Int32) {
        open.insert(socket)
        openedCount += 1
    }
    fileprivate func closed(_ socket: Int32) {
        if open.remove(socket) != nil { closedCount += 1 }
    }

    /// Shuts every open socket down (both ways) and returns how many: curl then sees each connection end
    /// and closes it itself. For connections that stopped answering (see `CurlLane`).
    func shutDownAll() -> Int {
        for socket in open { _ = shutdown(socket, Int32(SHUT_RDWR)) }
        return open.count
    }

    private func set(_ socket: Int32, _ value: Int32) {
        #if os(Linux)
        var value = value
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Points an easy handle's socket callbacks at this registry.
    func register(_ handle: UnsafeMutableRawPointer) -> Bool {
        let me = Unmanaged.passUnretained(self).toOpaque()
        var ok = ccurl_easy_setopt_sockopt_callback(handle, curlSocketOpened) == CURLE_OK
        ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_SOCKOPTDATA, me) == CURLE_OK
        ok = ok && ccurl_easy_setopt_closesocket_callback(handle, curlSocketClosed) == CURLE_OK
        ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_CLOSESOCKETDATA, me) == CURLE_OK
        return ok
    }
}

private func curlSocketOpened(user: UnsafeMutableRawPointer?, socket: curl_socket_t, purpose: curlsocktype) -> Int32 {
    if let user { Unmanaged<CurlSockets>.fromOpaque(user).takeUnretainedValue().opened(socket) }
    return 0  // CURL_SOCKOPT_OK
}

private func curlSocketClosed(user: UnsafeMutableRawPointer?, socket: curl_socket_t) -> Int32 {
    if let user { Unmanaged<CurlSockets>.fromOpaque(user).takeUnretainedValue().closed(socket) }
    return close(socket)
}
