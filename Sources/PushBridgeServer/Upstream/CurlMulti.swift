import CBlockCache
import CCurl

/// Owns one `CURLM` multi handle and frees it in `deinit`. Confined to the thread that drives it
/// (the I/O thread or an event loop) except for `wakeup()`, which libcurl documents as callable
/// from any thread.
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

    /// Hands the socket API's callbacks to libcurl with `context` as their user pointer, or
    /// takes them back (nil), as before the handle's owner goes away.
    func useSocketCallbacks(_ context: UnsafeMutableRawPointer?, socket: curl_socket_callback?, timer: curl_multi_timer_callback?) {
        _ = pb_curl_multi_setopt_socketfunction(handle, socket)
        _ = pb_curl_multi_setopt_ptr(handle, CURLMOPT_SOCKETDATA, context)
        _ = pb_curl_multi_setopt_timerfunction(handle, timer)
        _ = pb_curl_multi_setopt_ptr(handle, CURLMOPT_TIMERDATA, context)
    }

    /// Does the I/O of `socket` (or of every transfer whose timeout passed, for
    /// ``timeoutSocket``), without blocking. `events` (`CURL_CSELECT_IN`, `CURL_CSELECT_OUT`)
    /// says what the socket is ready for; with 0, curl finds out itself with a `poll` of it.
    func socketAction(_ socket: curl_socket_t, events: Int32 = 0) {
        var running: Int32 = 0
        _ = curl_multi_socket_action(handle, socket, events, &running)
    }

    /// The `socketAction` argument for "a timeout passed".
    static let timeoutSocket = pb_curl_socket_timeout()
}

/// `curl_global_init` must run once, before any other thread uses curl. It runs as
/// `curl_global_init_mem` with the per-thread block cache (`Sources/CBlockCache`) as curl's
/// allocator: a transfer's own state (its request, header buffers, URL parts) was about 35
/// mallocs and frees per upstream call. Before it, curl allocates with glibc's malloc, and
/// memory it allocated then would be freed through the cache: every place that asks curl for
/// memory (a handle, a header list, a multi) calls ``initializeOnce()`` first.
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init_mem(
        Int(CURL_GLOBAL_ALL), pb_block_alloc, pb_block_free, pb_block_realloc, pb_block_strdup, pb_block_calloc) == CURLE_OK

    /// Runs `curl_global_init` the first time only (Swift makes static initialization atomic).
    static func initializeOnce() { _ = initialized }
}
