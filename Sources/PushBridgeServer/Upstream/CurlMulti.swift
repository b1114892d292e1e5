import CCurl

/// Owns one `CURLM` multi handle and frees it in `deinit`. Confined to the I/O thread except
/// for `wakeup()`, which libcurl documents as callable from any thread.
final class CurlMulti {
    private let handle: UnsafeMutableRawPointer

    /// A multi handle keeping at most `maxIdleConnections` connections alive for reuse.
    init(maxIdleConnections: Int) throws(UpstreamFailure) {
        CurlGlobal.initializeOnce()
        guard let handle = curl_multi_init() else {
            throw UpstreamFailure(kind: .other, message: "curl_multi_init failed", provablyNotSent: true)
        }
        self.handle = handle
        _ = pb_curl_multi_setopt_long(handle, CURLMOPT_MAXCONNECTS, max(1, maxIdleConnections))
    }

    deinit { curl_multi_cleanup(handle) }

    /// Starts driving an easy handle.
    func add(_ easy: UnsafeMutableRawPointer) -> CURLMcode { curl_multi_add_handle(handle, easy) }

    /// Stops driving an easy handle (it may then be freed).
    func remove(_ easy: UnsafeMutableRawPointer) { _ = curl_multi_remove_handle(handle, easy) }

    /// Does whatever I/O is ready without blocking.
    func perform() {
        var running: Int32 = 0
        _ = curl_multi_perform(handle, &running)
    }

    /// Calls `body` with each finished easy handle and its result code.
    func drainCompleted(_ body: (UnsafeMutableRawPointer, CURLcode) -> Void) {
        var left: Int32 = 0
        while let msg = curl_multi_info_read(handle, &left) {
            guard msg.pointee.msg == CURLMSG_DONE, let easy = msg.pointee.easy_handle else { continue }
            body(easy, pb_curl_msg_result(msg))
        }
    }

    /// Blocks until a socket is ready, `wakeup()` is called, or the timeout passes.
    func poll(timeoutMilliseconds: Int32) {
        _ = curl_multi_poll(handle, nil, 0, timeoutMilliseconds, nil)
    }

    /// Interrupts `poll` from any thread.
    func wakeup() { _ = curl_multi_wakeup(handle) }
}

/// `curl_global_init` must run once, before any other thread uses curl.
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK

    /// Runs `curl_global_init` the first time only (Swift makes static initialization atomic).
    static func initializeOnce() { _ = initialized }
}
