import CCurl

/// Owns one `CURL` easy handle and frees it in `deinit`. ``UpstreamIOLoop`` keeps a few idle
/// ones and reuses them (a new handle is a large zeroed allocation and its own set-up); the
/// transfer that used one resets it when it ends, so an idle handle holds no option pointing
/// at memory that is gone. Confined to the I/O thread.
final class CurlEasyHandle {
    /// The raw handle.
    let raw: UnsafeMutableRawPointer

    /// A new handle; throws (nothing sent) when curl cannot make one.
    init() throws(UpstreamFailure) {
        guard let raw = curl_easy_init() else {
            throw UpstreamFailure(kind: .other, message: "curl_easy_init failed", provablyNotSent: true)
        }
        self.raw = raw
    }

    deinit { curl_easy_cleanup(raw) }

    /// Clears every option back to a new handle's (connections stay in the multi's cache).
    func reset() { curl_easy_reset(raw) }
}
