import HeraldCore
import HeraldCurl

/// The request header list of the current access token: every send of a fan-out shares it, so the
/// lines (and curl's list of them) are built once per token instead of once per device.
final class FCMHeaderListCache: Sendable {
    private let last = Locked<(serial: UInt64, list: CurlHeaderList)?>(nil)

    func list(for token: FCMAccessToken.Issued) -> CurlHeaderList {
        if let cached = last.withLock({ $0 }), cached.serial == token.serial { return cached.list }
        let list = CurlHeaderList([token.headerLine, "content-type: application/json", "Accept:"])
        last.withLock { $0 = (token.serial, list) }
        return list
    }
}
