import CCurl
import CMicroHTTPD
import Glibc

/// An upstream client's transfers started on one ``EventLoop``, driven by libcurl's multi
/// socket API from that loop's thread, so a request running on the loop sends and receives
/// without leaving it: curl's sockets are watched in the loop's epoll
/// (`CURLMOPT_SOCKETFUNCTION`; curl is told what a ready socket is ready for, so it does not
/// `poll` it again), its timer is a deadline on the loop's own timer heap
/// (`CURLMOPT_TIMERFUNCTION`: the loop's `epoll_wait` times out at it, no descriptor and no
/// `timerfd_settime` per call), `curl_multi_socket_action` runs on readiness or when the timer
/// fires, and each finished transfer resumes its caller right there. One per client and loop,
/// kept in the loop's ``EventLoop/locals``; when the loop stops, whatever is in flight fails
/// with the error the I/O thread gives at its stop.
///
/// Cancels its timer in `loopStopped()` and `deinit` (the multi and easy handles are owned by
/// ``CurlTransfers``). Confined to the loop's thread.
final class UpstreamLoopMulti: EventLoopLocal {
    private unowned let loop: EventLoop
    private let transfers: CurlTransfers
    /// curl's timer: the time it wants and the entries on the loop's heap that stand for it.
    private var timers = CurlTimerEntries()
    /// What the timer runs: made once, so setting the timer allocates nothing. It holds this
    /// multi weakly and acts only on the loop's thread.
    private let fire: DeadlineHeap.Action
    /// curl's sockets now watched in the loop's epoll.
    private var sockets: Set<Int32> = []
    /// What the loop runs when one of them is ready: made once, so watching a socket
    /// allocates nothing.
    private lazy var onReady: (Int32, Bool, Bool) -> Void = { [unowned self] fd, readable, writable in
        act(on: fd, events: (readable ? CURL_CSELECT_IN : 0) | (writable ? CURL_CSELECT_OUT : 0))
    }
    private var stopped = false
    /// Entries this multi added to the loop's timer heap and cancelled there, so far.
    private(set) var timerChanges = (added: 0, cancelled: 0)

    /// Transfers on `loop` (call on its thread).
    init(loop: EventLoop, configuration: UpstreamClientConfiguration) throws(UpstreamFailure) {
        self.loop = loop
        transfers = try CurlTransfers(configuration: configuration)
        let target = LoopMultiReference(loop: loop)
        fire = { target.timerFired() }
        target.multi = self
        transfers.multi.useSocketCallbacks(Unmanaged.passUnretained(self).toOpaque(), socket: loopMultiSocketCallback, timer: loopMultiTimerCallback)
    }

    deinit {
        // curl must not call back into an object that is going away (it does while it closes
        // cached connections).
        transfers.multi.useSocketCallbacks(nil, socket: nil, timer: nil)
        cancelTimers()
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

    /// Shared header lists built on this loop so far (one per app and configuration).
    var headerListsBuilt: Int { transfers.headerLists.built }

    /// The loop stopped: fail what is in flight and stop watching curl's descriptors.
    func loopStopped() {
        stopped = true
        transfers.failAll()
        for fd in sockets { loop.detach(fd: fd) }
        sockets = []
        // Before the loop hands its timers to the timer thread, which must not drive curl.
        cancelTimers()
    }

    private func cancelTimers() {
        let (first, second) = timers.dropAll()
        if let first { cancel(first) }
        if let second { cancel(second) }
    }

    /// `CURLMOPT_SOCKETFUNCTION`: watch `fd` as curl asks, or stop watching it.
    fileprivate func socket(_ fd: Int32, _ what: Int32) {
        if what == CURL_POLL_REMOVE {
            // Parked, not removed: curl keeps the connection for the next call, which watches
            // it again with one epoll_ctl (a removal now and an addition then were two).
            if sockets.remove(fd) != nil { loop.park(fd: fd) }
            return
        }
        sockets.insert(fd)
        loop.watch(fd: fd, readable: what & CURL_POLL_IN != 0, writable: what & CURL_POLL_OUT != 0, run: onReady)
    }

    /// `CURLMOPT_TIMERFUNCTION`: run curl's timeouts in `milliseconds` (on the loop's next turn
    /// for 0, never for -1). An entry already due by then stays as it is (``CurlTimerEntries``);
    /// an earlier time adds one. Never acts from inside curl's callback.
    fileprivate func setTimer(_ milliseconds: Int) {
        guard milliseconds >= 0, !stopped else {
            // Entries left fire and find nothing wanted.
            timers.wanted = nil
            return
        }
        let due = ContinuousClock.now + .milliseconds(milliseconds)
        timers.wanted = due
        if !timers.covers(due) { arm(due) }
    }

    /// Adds an entry at `due` to the loop's heap, cancelling the one it pushes out.
    private func arm(_ due: ContinuousClock.Instant) {
        guard let id = loop.timers.withLock({ $0?.add(due, fire) }) else { return }
        timerChanges.added += 1
        if let pushedOut = timers.hold((id, due)) { cancel(pushedOut) }
    }

    private func cancel(_ id: UInt64) {
        timerChanges.cancelled += 1
        LoopTimer(loop: loop, id: id).cancel()
    }

    /// An entry is due, on the loop's thread: curl's timeouts run if curl wants them by now;
    /// if it wants them later (the entry was set for an earlier time), an entry is armed then.
    fileprivate func timerFired() {
        let now = ContinuousClock.now
        timers.dropDue(now)
        guard !stopped, let wanted = timers.wanted else { return }
        guard wanted <= now else {
            if !timers.covers(wanted) { arm(wanted) }
            return
        }
        // Taken, as curl's timer was before: curl asks again for what it wants next.
        timers.wanted = nil
        act(on: CurlMulti.timeoutSocket)
    }

    private func act(on socket: curl_socket_t, events: Int32 = 0) {
        transfers.multi.socketAction(socket, events: events)
        transfers.collectFinished()
    }
}

/// How the timer's action reaches its multi: weakly (the multi may go before a timer it
/// cancelled is dropped from the heap), and only on the multi's loop thread, where every read
/// and write of `multi` happens (set once on that thread before any timer is).
private final class LoopMultiReference: @unchecked Sendable {
    /// The loop whose thread alone may act.
    weak var loop: EventLoop?
    /// The multi the timer belongs to, nil once it is gone.
    weak var multi: UpstreamLoopMulti?

    /// A reference for a multi on `loop` (its `multi` is set by the multi itself).
    init(loop: EventLoop) { self.loop = loop }

    /// The timer is due: tells the multi, when on its loop's thread and still there.
    func timerFired() {
        guard let loop, EventLoop.current === loop else { return }
        multi?.timerFired()
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
