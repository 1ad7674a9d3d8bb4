import CCurl
import HeraldCore

/// Request header lines as the `curl_slist` curl reads, built by the sender's thread so the loop
/// thread only hands it over. Many transfers may share one (curl only reads it); it is freed when
/// the last job holding it lets go, after curl is done with all of them.
///
/// `@unchecked Sendable`: the list is built in `init` and never changed afterwards; curl only
/// reads it, on the loop thread, while a job that holds this object is attached.
public final class CurlHeaderList: @unchecked Sendable {
    let list: UnsafeMutablePointer<curl_slist>?
    /// False if curl could not allocate the list.
    public let isComplete: Bool

    public init(_ lines: [String]) {
        var list: UnsafeMutablePointer<curl_slist>?
        var complete = true
        for line in lines {
            guard let next = curl_slist_append(list, line) else {
                complete = false
                break
            }
            list = next
        }
        self.list = list
        isComplete = complete
    }

    deinit { if let list { curl_slist_free_all(list) } }
}

/// The last header lists built, reused while their keys come again. A fan-out sends one message to many
/// devices with the same headers, so each provider client builds the lines (and curl's list of them)
/// once per message and credential, not once per device: APNs keys it by the notification's headers
/// and the provider token, FCM by the access token, Web Push by the push service (its origin) and that
/// service's VAPID token, keeping one per service a fan-out reaches (`capacity`).
///
/// `@inlinable`, like `SendStream`: every send looks its list up here, and a copy specialised for the
/// client's key type compares keys directly rather than through the runtime's generic metadata.
public final class CurlHeaderListCache<Key: Hashable & Sendable>: Sendable {
    /// Most recent last.
    @usableFromInline let recent = Locked<[(key: Key, list: CurlHeaderList)]>([])
    @usableFromInline let capacity: Int

    /// `capacity`: how many keys' lists are kept (the least recently built goes first).
    @inlinable
    public init(capacity: Int = 1) { self.capacity = max(1, capacity) }

    /// The list for `key`: the cached one when the key is one of the kept ones', else `build()`'s, kept.
    @inlinable
    public func list(for key: Key, build: () -> CurlHeaderList) -> CurlHeaderList {
        if let cached = recent.withLock({ entries in entries.last { $0.key == key } }) { return cached.list }
        let list = build()
        recent.withLock { entries in
            entries.removeAll { $0.key == key }
            if entries.count >= capacity { entries.removeFirst(entries.count - capacity + 1) }
            entries.append((key, list))
        }
        return list
    }
}
