import CCurl

/// Owns one `CURL` easy handle and its error buffer, and frees both in `deinit`.
/// ``CurlTransfers`` keeps a few idle ones and reuses them (a new handle is a large zeroed
/// allocation and its own set-up): the options every call of a configuration shares are set
/// once per handle (``prepare(_:)``), and the transfer that used one releases it when it ends
/// (``release()``), so an idle handle holds no option pointing at memory that is gone and
/// carries no method, body or header over to the next call. Confined to the I/O thread.
final class CurlEasyHandle {
    /// The raw handle.
    let raw: UnsafeMutableRawPointer
    /// Where curl writes the text of a failure (`CURLOPT_ERRORBUFFER`), cleared per call.
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// Whether the shared options are set (false for a new handle and after a reset).
    private var prepared = false

    /// A new handle; throws (nothing sent) when curl cannot make one.
    init() throws(UpstreamFailure) {
        CurlGlobal.initializeOnce()
        guard let raw = curl_easy_init() else {
            throw UpstreamFailure(kind: .other, message: "curl_easy_init failed", provablyNotSent: true)
        }
        self.raw = raw
        errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
    }

    /// Sets the options every call with `configuration` shares, unless they are set already;
    /// clears the error text of the call before.
    func prepare(_ configuration: UpstreamClientConfiguration, write: curl_write_callback, header: curl_write_callback) throws(UpstreamFailure) {
        errorBuffer[0] = 0
        guard !prepared else { return }
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeRawPointer(errorBuffer))
        // The path leaves as it was built and audited: no dot-segment removal by libcurl.
        try set(CURLOPT_PATH_AS_IS, 1)
        try set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.curlMilliseconds)
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = configuration.caFile { try set(CURLOPT_CAINFO, string: caFile) }
        try set(CURLOPT_TCP_KEEPALIVE, 1)
        try set(CURLOPT_MAXFILESIZE_LARGE, offset: curl_off_t(configuration.maxResponseBytes))
        guard pb_curl_easy_setopt_write(raw, CURLOPT_WRITEFUNCTION, write) == CURLE_OK,
              pb_curl_easy_setopt_write(raw, CURLOPT_HEADERFUNCTION, header) == CURLE_OK
        else { throw UpstreamFailure(kind: .other, message: "cannot install curl callbacks", provablyNotSent: true) }
        prepared = true
    }

    /// The call ended: takes back what pointed into it (body, headers, the callbacks' target)
    /// and the method it chose (GET again, no body, no custom verb). Should curl refuse one of
    /// these, the handle is reset whole and prepared again by its next call.
    func release() {
        let cleared = pb_curl_easy_setopt_ptr(raw, CURLOPT_POSTFIELDS, nil) == CURLE_OK
            && pb_curl_easy_setopt_off(raw, CURLOPT_POSTFIELDSIZE_LARGE, -1) == CURLE_OK
            && pb_curl_easy_setopt_ptr(raw, CURLOPT_CUSTOMREQUEST, nil) == CURLE_OK
            && pb_curl_easy_setopt_long(raw, CURLOPT_HTTPGET, 1) == CURLE_OK
            && pb_curl_easy_setopt_ptr(raw, CURLOPT_HTTPHEADER, nil) == CURLE_OK
            && pb_curl_easy_setopt_ptr(raw, CURLOPT_WRITEDATA, nil) == CURLE_OK
            && pb_curl_easy_setopt_ptr(raw, CURLOPT_HEADERDATA, nil) == CURLE_OK
        if !cleared {
            curl_easy_reset(raw)
            prepared = false
        }
    }

    /// Sets a numeric option; throws (nothing sent) when curl refuses it.
    func set(_ option: CURLoption, _ value: Int) throws(UpstreamFailure) {
        try check(option, pb_curl_easy_setopt_long(raw, option, value))
    }

    /// Sets a string option (curl copies it).
    func set(_ option: CURLoption, string: String) throws(UpstreamFailure) {
        try check(option, string.withCString { pb_curl_easy_setopt_ptr(raw, option, $0) })
    }

    /// Sets a pointer option (the pointee must outlive the call).
    func set(_ option: CURLoption, pointer: UnsafeRawPointer?) throws(UpstreamFailure) {
        try check(option, pb_curl_easy_setopt_ptr(raw, option, pointer))
    }

    /// Sets a `curl_off_t` option.
    func set(_ option: CURLoption, offset: curl_off_t) throws(UpstreamFailure) {
        try check(option, pb_curl_easy_setopt_off(raw, option, offset))
    }

    private func check(_ option: CURLoption, _ code: CURLcode) throws(UpstreamFailure) {
        guard code == CURLE_OK else {
            throw UpstreamFailure(kind: .other, message: "curl option \(option.rawValue): \(String(cString: curl_easy_strerror(code)))",
                                  curlCode: Int(code.rawValue), provablyNotSent: true)
        }
    }
}
