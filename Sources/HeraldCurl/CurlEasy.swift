import CCurl

/// One libcurl easy handle, reused for transfer after transfer so its buffers and TLS settings
/// are set up once. Used only on the client's loop thread.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    /// curl writes its detailed error text here (CURL_ERROR_SIZE bytes).
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    // Per transfer: filled by the callbacks, cleared by `prepare`.
    var responseBody: [UInt8] = []
    var capturedHeaders: CurlCapturedHeaders
    /// `settings.capturedHeaders` in lower case, and as the bytes a header line starts with ("name:").
    private let capturedNames: [String]
    private let captured: [[UInt8]]
    let maxResponseBytes: Int

    init(settings: CurlOptions, sockets: CurlSockets) throws(CurlConfigurationError) {
        guard let handle = curl_easy_init() else { throw CurlConfigurationError("curl_easy_init failed") }
        self.handle = handle
        capturedNames = settings.capturedHeaders.map { $0.lowercased() }
        captured = capturedNames.map { Array(($0 + ":").utf8) }
        capturedHeaders = CurlCapturedHeaders(names: capturedNames)
        maxResponseBytes = settings.maxResponseBytes
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let me = Unmanaged.passUnretained(self).toOpaque()
        var ok = true
        ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer) == CURLE_OK
        ok = ok && ccurl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, curlEasyWrite) == CURLE_OK
        ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, me) == CURLE_OK
        ok = ok && ccurl_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, curlEasyHeader) == CURLE_OK
        ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, me) == CURLE_OK
        ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1) == CURLE_OK
        ok = ok && sockets.register(handle)
        ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_POST, 1) == CURLE_OK
        ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_PIPEWAIT, settings.cleartext ? 0 : 1) == CURLE_OK
        ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1) == CURLE_OK
        ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_TCP_KEEPIDLE, 60) == CURLE_OK
        ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_TCP_KEEPINTVL, 30) == CURLE_OK
        ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_TCP_NODELAY, 1) == CURLE_OK
        ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_UPLOAD_BUFFERSIZE, 16384) == CURLE_OK
        // curl drops a connection idle for 118 s by default; APNs wants them kept for long (an hour unless
        // configured: `ConnectionIdle`).
        ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_MAXAGE_CONN, settings.maxIdleSeconds) == CURLE_OK
        ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeoutMilliseconds) == CURLE_OK
        ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, settings.requestTimeoutMilliseconds) == CURLE_OK
        if settings.cleartext {
            ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, ccurl_http_version_2_prior_knowledge()) == CURLE_OK
            // curl 7.88 fails every request after the first on a reused prior-knowledge (h2c)
            // connection with "Error in the HTTP2 framing layer" (curl's own CLI does too), so
            // cleartext, a test-only mode, uses one connection per request. TLS is unaffected.
            ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_FORBID_REUSE, 1) == CURLE_OK
        } else {
            ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, ccurl_http_version_2tls()) == CURLE_OK
            ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_SSLVERSION, ccurl_sslversion_tlsv1_2()) == CURLE_OK
            if let caFile = settings.caFile {
                ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_CAINFO, caFile) == CURLE_OK
            }
            if let certificate = settings.certificateFile {
                ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_SSLCERT, certificate) == CURLE_OK
                ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_SSLCERTTYPE, settings.certificateType) == CURLE_OK
                if let key = settings.privateKeyFile {
                    ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_SSLKEY, key) == CURLE_OK
                }
                if let passphrase = settings.passphrase {
                    ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_KEYPASSWD, passphrase) == CURLE_OK
                }
            }
        }
        guard ok else {
            curl_easy_cleanup(handle)
            errorBuffer.deallocate()
            throw CurlConfigurationError("libcurl refused an option (is it built with HTTP/2 and TLS?)")
        }
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// Points the handle at one request. `headers` and `body` must stay alive until the
    /// transfer ends (the job holds them).
    /// Transfers started on this handle since it was made (curl's retry count covers them all).
    var transfers = 0

    /// libcurl sends a request again on a new connection when its stream was refused (REFUSED_STREAM, or
    /// a GOAWAY that did not cover it) or its reused connection died before any answer byte, at most five
    /// times, and then fails it with "Connection died, tried 5 times before giving up". But it counts those
    /// retries per easy handle for the handle's whole life (curl 7.88 resets the count only in
    /// `curl_easy_reset` or when it fires), and the lane reuses handles for hours: a handle's sixth such
    /// retry failed a send that had met none before. So a transfer that ends this way on a handle that had
    /// served earlier transfers is sent again on a handle made for it (not one from the idle pool, whose
    /// counts may be as high): the resend curl makes for a transfer's first five, under the same condition
    /// (no byte of an answer came). On a handle that served only this transfer (a new one, or the one it
    /// was sent again on) the five retries were all its own, and it fails as curl meant.
    /// Recognised by curl's text for that failure; a curl that words it otherwise only loses the resend
    /// (the send fails as a lost connection, which the caller may retry).
    func curlGaveUpOnRetriesOfEarlierTransfers(_ code: CURLcode, _ text: String) -> Bool {
        transfers > 1 && (code == CURLE_SEND_ERROR || code == CURLE_RECV_ERROR) && text.hasPrefix("Connection died, tried")
    }

    func prepare(url: String, headers: CurlHeaderList, body payload: CurlBody) -> Bool {
        responseBody.removeAll(keepingCapacity: true)
        // Emptied: a value with no values (the names are shared, not copied).
        if !capturedHeaders.isEmpty { capturedHeaders = CurlCapturedHeaders(names: capturedNames) }
        errorBuffer[0] = 0
        guard headers.isComplete else { return false }
        var ok = ccurl_easy_setopt_string(handle, CURLOPT_URL, url) == CURLE_OK
        ok = ok && ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headers.list) == CURLE_OK
        ok = ok && ccurl_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(payload.count)) == CURLE_OK
        ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_POSTFIELDS, payload.bytes.baseAddress) == CURLE_OK
        return ok
    }

    /// The HTTP status of the finished transfer (0 if none arrived).
    var responseCode: Int {
        var code: Int = 0
        _ = ccurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// curl's detailed message for the last failure, or its generic text for `code`.
    func errorText(_ code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }

    fileprivate func received(header line: UnsafeBufferPointer<UInt8>) {
        // Compared as bytes ("apns-id: <uuid>\r\n"), so the headers nobody asked for cost no allocation.
        for (index, prefix) in captured.enumerated() {
            if let value = Self.value(of: prefix, in: line) {
                capturedHeaders.set(value, at: index)
                return
            }
        }
    }

    /// The trimmed value if `line` is the header `name` (which includes its colon), any case.
    private static func value(of name: [UInt8], in line: UnsafeBufferPointer<UInt8>) -> String? {
        guard line.count > name.count else { return nil }
        for index in 0..<name.count where line[index] | 0x20 != name[index] | 0x20 { return nil }
        var start = name.count
        var end = line.count
        while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        while end > start, line[end - 1] <= 0x20 { end -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
    }
}

private func curlEasyWrite(data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, user: UnsafeMutableRawPointer?) -> Int {
    guard let data, let user else { return 0 }
    let easy = Unmanaged<CurlEasy>.fromOpaque(user).takeUnretainedValue()
    let bytes = size * count
    // Answers are small (an APNs error, an FCM name); a server that sends more is cut off rather than buffered.
    if easy.responseBody.count + bytes > easy.maxResponseBytes { return 0 }
    data.withMemoryRebound(to: UInt8.self, capacity: bytes) {
        easy.responseBody.append(contentsOf: UnsafeBufferPointer(start: $0, count: bytes))
    }
    return bytes
}

private func curlEasyHeader(data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, user: UnsafeMutableRawPointer?) -> Int {
    guard let data, let user else { return 0 }
    let bytes = size * count
    let easy = Unmanaged<CurlEasy>.fromOpaque(user).takeUnretainedValue()
    data.withMemoryRebound(to: UInt8.self, capacity: bytes) {
        easy.received(header: UnsafeBufferPointer(start: $0, count: bytes))
    }
    return bytes
}
