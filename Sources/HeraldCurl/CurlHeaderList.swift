import CCurl

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
