import CCurl
import CMicroHTTPD
import Glibc

/// An upstream client's transfers started on one ``EventLoop``, driven by libcurl's multi
/// socket API from that loop's thread, so a request running on the loop sends and receives
/// without leaving it: curl's sockets are watched in the loop's epoll
/// (`CURLMOPT_SOCKETFUNCTION`), its timer is a timerfd attached to the loop
/// (`CURLMOPT_TIMERFUNCTION`), `curl_multi_socket_action` runs on readiness or when the timer
/// fires, and each finished transfer resumes its caller right there. One per client and loop,
/// kept in the loop's ``EventLoop/locals``; when the loop stops, whatever is in flight fails
/// with the error the I/O thread gives at its stop.
///
/// Owns the timer descriptor and closes it in `deinit` (the multi and easy handles are owned by
/// ``CurlTransfers``). Confined to the loop's thread.
final class UpstreamLoopMulti: EventLoopLocal {
    private unowned let loop: EventLoop
    private let transfers: CurlTransfers
    private let timer: Int32
    /// curl's sockets now watched in the loop's epoll.
    private var sockets: Set<Int32> = []
    private var stopped = false

    /// Transfers on `loop` (call on its thread).
    init(loop: EventLoop, configuration: UpstreamClientConfiguration) throws(UpstreamFailure) {
        self.loop = loop
        transfers = try CurlTransfers(configuration: configuration)
        timer = pb_timerfd()
        guard timer >= 0 else { throw UpstreamFailure(kind: .other, message: "timerfd_create failed (errno \(errno))", provablyNotSent: true) }
        transfers.multi.useSocketCallbacks(Unmanaged.passUnretained(self).toOpaque(), socket: loopMultiSocketCallback, timer: loopMultiTimerCallback)
        loop.watch(fd: timer, readable: true, writable: false) { [unowned self] in timerFired() }
    }

    deinit {
        // curl must not call back into an object that is going away (it does while it closes
        // cached connections).
        transfers.multi.useSocketCallbacks(nil, socket: nil, timer: nil)
        close(timer)
    }

    /// Starts `p`'s transfer, or fails it at once (nothing sent) once the loop or client stopped.
    func start(_ p: CurlTransfers.Pending) {
        guard !stopped else {
            p.continuation.resume(returning: .failure(CurlTransfers.shutDown(p.start, notSent: true)))
            return
        }
        transfers.start(p)
    }

    /// Fails every transfer in flight (the client stops).
    func failAll() { transfers.failAll() }

    /// The loop stopped: fail what is in flight and stop watching curl's descriptors.
    func loopStopped() {
        stopped = true
        transfers.failAll()
        for fd in sockets { loop.detach(fd: fd) }
        sockets = []
        loop.detach(fd: timer)
    }

    /// `CURLMOPT_SOCKETFUNCTION`: watch `fd` as curl asks, or stop watching it.
    fileprivate func socket(_ fd: Int32, _ what: Int32) {
        if what == CURL_POLL_REMOVE {
            if sockets.remove(fd) != nil { loop.detach(fd: fd) }
            return
        }
        sockets.insert(fd)
        loop.watch(fd: fd, readable: what & CURL_POLL_IN != 0, writable: what & CURL_POLL_OUT != 0) { [unowned self] in act(on: fd) }
    }

    /// `CURLMOPT_TIMERFUNCTION`: fire in `milliseconds` (at once for 0, never for -1).
    fileprivate func setTimer(_ milliseconds: Int) { _ = pb_timerfd_arm(timer, milliseconds) }

    private func timerFired() {
        var expirations: UInt64 = 0
        _ = Glibc.read(timer, &expirations, 8)
        act(on: CurlMulti.timeoutSocket)
    }

    private func act(on socket: curl_socket_t) {
        transfers.multi.socketAction(socket)
        transfers.collectFinished()
    }
}

private func loopMultiSocketCallback(_ easy: UnsafeMutableRawPointer?, _ fd: curl_socket_t, _ what: Int32,
                                     _ context: UnsafeMutableRawPointer?, _ socketContext: UnsafeMutableRawPointer?) -> Int32 {
    guard let context else { return 0 }
    Unmanaged<UpstreamLoopMulti>.fromOpaque(context).takeUnretainedValue().socket(fd, what)
    return 0
}

private func loopMultiTimerCallback(_ multi: UnsafeMutableRawPointer?, _ milliseconds: Int, _ context: UnsafeMutableRawPointer?) -> Int32 {
    guard let context else { return 0 }
    Unmanaged<UpstreamLoopMulti>.fromOpaque(context).takeUnretainedValue().setTimer(milliseconds)
    return 0
}
