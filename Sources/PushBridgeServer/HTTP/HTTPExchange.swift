import CMicroHTTPD
import Synchronization

/// One request, from its request line until libmicrohttpd reports it completed. `*req_cls`
/// holds it (retained through `Unmanaged`) for that whole time.
///
/// The event loop that polls the connection drives ``State/phase``; the handler task, the
/// deadline's timer (``HandlerDeadlines``) and ``HTTPServer/stop(gracePeriod:)`` race to end
/// the request, each through an event of its ``ending`` (``RequestEnding``): the one answer
/// it decides is set as ``State/response`` (``finish(_:)``, ``deliver(_:)``) and resumes the
/// suspended connection.
final class HTTPExchange: Sendable {
    /// Where a request is in its life.
    enum Phase: Sendable {
        /// The request line arrived; headers not read yet.
        case awaitingHeaders
        /// Headers read; body bytes arriving.
        case receivingBody
        /// The body passed the limit mid-stream: the rest is read and dropped, then 413.
        case discardingBody
        /// The handler runs; the connection is suspended.
        case suspended
        /// A response was queued.
        case answered
    }

    /// The mutable part, guarded by ``state``.
    struct State: Sendable {
        var phase: Phase = .awaitingHeaders
        var method = ""
        var headers: [(name: String, value: String)] = []
        var remoteAddress = ""
        /// What answers on this connection advertise as `Keep-Alive: timeout=` while it
        /// stays open (nil: nothing, the request asked for the connection to close).
        var keepAliveSeconds: Int?
        var body: [UInt8] = []
        /// Body bytes read and dropped after the limit was passed.
        var discarded = 0
        /// The request given to the handler (kept for the responder of a late failure).
        var request: HTTPRequest?
        /// The answer; set once.
        var response: HTTPResponse?
        /// The handler task, cancelled when the answer is decided (held without an array:
        /// an array literal and the array grown from it were two allocations per request).
        var task: Task<Void, Never>?
        /// Any task adopted after ``task`` (none today: one per request), cancelled with it.
        var moreTasks: [Task<Void, Never>] = []
        /// The handler deadline's timer, cancelled when the answer is decided.
        var deadlineTimer: LoopTimer?
        /// What holds the request to its deadline (``watched(by:)``), told when it passes.
        var watcher: HandlerDeadlines?
    }

    /// The request target as sent: path and query string.
    let target: String
    /// The id and arrival time the server's exit gave the request (nil without an exit).
    let ticket: HTTPRequestTicket?
    /// How the request ends: ``ticket``, or one of its own without an exit.
    let ending: HTTPRequestTicket
    /// The loop that read its request line, which counts it in flight
    /// (``EventLoop/exchangesOpen``) until libmicrohttpd's completion notice
    /// (``HTTPServerCore/closed(_:refusedByLibrary:)``); nil off a loop.
    let loop: EventLoop?
    /// The guarded state.
    let state = Mutex(State())
    /// The suspended `MHD_Connection *` as a bit pattern (a raw pointer is not `Sendable`; the
    /// lock, not the type, makes sharing it safe) and the loop polling its daemon, set only
    /// while suspended and not yet resumed. It has its own lock so that resuming, which wakes
    /// the loop, does not hold ``state``: the loop takes ``state`` as soon as it runs, to queue
    /// the answer.
    private let suspendedConnection = Mutex<(connection: UInt, loop: EventLoop?)?>(nil)
    /// The body of the answer queued for this request, which libmicrohttpd sends from these
    /// bytes, not a copy (``keepSentBody(_:)``): set once, never changed, released with the
    /// exchange, which the queued response keeps alive until libmicrohttpd destroys it.
    private let sentBody = Mutex<[UInt8]?>(nil)

    /// An exchange for a request line with `target`, known to the server's exit by `ticket`,
    /// read on `loop` (which counts it in flight from now on).
    init(target: String, ticket: HTTPRequestTicket? = nil, loop: EventLoop? = nil) {
        self.target = target
        self.ticket = ticket
        self.ending = ticket ?? HTTPRequestTicket(id: "", startedMs: 0)
        self.loop = loop
        loop?.exchangesOpen.add(1, ordering: .relaxed)
    }

    /// The request as far as it arrived (method, target, headers, peer; no body), with its
    /// ticket: what an answer the server makes itself is given.
    func headOnlyRequest(remoteAddress: String? = nil) -> HTTPRequest {
        state.withLock { state in
            HTTPRequest(method: state.method, target: target, headers: state.headers, remoteAddress: remoteAddress ?? state.remoteAddress, ticket: ticket)
        }
    }

    /// Decides the answer `side` made if nobody has yet and the other side has not claimed
    /// it (``RequestEnding/Event/answerReady(from:)``), and sends it (``deliver(_:)``).
    /// Returns whether this call decided it.
    @discardableResult
    func finish(_ response: HTTPResponse, from side: RequestEnding.Side) -> Bool {
        guard ending.on(.answerReady(from: side)) == .send else { return false }
        return deliver(response, byHandler: side == .handler)
    }

    /// Sends `response`, the answer ``ending`` decided: cancels the tasks still running for
    /// it and resumes the connection if it is suspended. Returns false if an answer was set
    /// before (the connection closed meanwhile). `byHandler`: the answer is the handler's,
    /// given by the handler's task (``task``) as it ends its request, which is not cancelled:
    /// it has nothing left to cancel, and a task kept between requests (``HandlerWorkers``)
    /// would otherwise end with it.
    @discardableResult
    func deliver(_ response: HTTPResponse, byHandler: Bool = false) -> Bool {
        let decided = state.withLock { state -> (task: Task<Void, Never>?, more: [Task<Void, Never>], timer: LoopTimer?)? in
            guard state.response == nil else { return nil }
            state.response = response
            defer { state.task = nil; state.moreTasks = []; state.deadlineTimer = nil }
            return (byHandler ? nil : state.task, state.moreTasks, state.deadlineTimer)
        }
        guard let (task, more, timer) = decided else { return false }
        timer?.cancel()
        task?.cancel()
        for task in more { task.cancel() }
        // The answer is set before the resume, and `suspend` ran under ``state`` after checking
        // for an answer, so a connection is never resumed before it is suspended, nor left
        // suspended with its answer decided.
        let loop = suspendedConnection.withLock { suspended -> EventLoop? in
            guard let (bits, loop) = suspended, let connection = OpaquePointer(bitPattern: bits) else { return nil }
            suspended = nil
            // Under this lock: `close` takes it too, so the connection cannot go meanwhile.
            MHD_resume_connection(connection)
            return loop
        }
        // libmicrohttpd's external polling learns of a resume only when it next runs.
        loop?.pollSoon()
        return true
    }

    /// Suspends `connection` and remembers it, with the loop polling it, for ``finish(_:)``.
    /// Call from that loop, holding ``state``'s lock, after seeing that no answer is decided yet.
    func suspend(_ connection: OpaquePointer) {
        suspendedConnection.withLock { suspended in
            suspended = (UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection))), EventLoop.current)
            MHD_suspend_connection(connection)
        }
    }

    /// Keeps `body`, the body of the answer about to be queued, for libmicrohttpd to send
    /// from, and returns where its bytes are: they stay there while the exchange lives, for
    /// the array is kept here unchanged (its storage neither moves nor is freed). Nil if a
    /// body was kept before (a second answer for one request: copied as before).
    func keepSentBody(_ body: [UInt8]) -> UnsafeRawBufferPointer? {
        sentBody.withLock { kept in
            guard kept == nil else { return nil }
            kept = body
            return kept.map { kept in kept.withUnsafeBytes { $0 } }
        }
    }

    /// Whether the answer is decided (by the handler, the deadline, a shutdown or a close).
    var isDecided: Bool { state.withLock { $0.response != nil } }

    /// libmicrohttpd is done with the connection: forget it so nothing resumes it later, and
    /// cancel the tasks still running for it. The request's headers and body are released
    /// and its deadline timer cancelled.
    func close() {
        _ = ending.on(.closed)
        suspendedConnection.withLock { $0 = nil }
        let (task, more, timer) = state.withLock { state in
            state.request = nil
            state.headers = []
            state.body = []
            if state.response == nil { state.response = HTTPResponse(status: 503) }
            defer { state.task = nil; state.moreTasks = []; state.deadlineTimer = nil }
            return (state.task, state.moreTasks, state.deadlineTimer)
        }
        timer?.cancel()
        task?.cancel()
        for task in more { task.cancel() }
    }

    /// `deadlines` holds the request to its deadline: ``deadlineDue()`` tells it when it passes.
    func watched(by deadlines: HandlerDeadlines) {
        state.withLock { $0.watcher = deadlines }
    }

    /// The handler deadline's timer fired: its watcher (``watched(by:)``) decides what follows
    /// (``HandlerDeadlines/due(_:)``).
    func deadlineDue() {
        state.withLock { $0.watcher }?.due(self)
    }

    /// Keeps the timer of the handler deadline (``HandlerDeadlines``) so ``finish(_:)`` can
    /// cancel it; cancels it at once if the answer is already decided.
    func holdDeadline(_ timer: LoopTimer) {
        let decided = state.withLock { state in
            if state.response == nil { state.deadlineTimer = timer }
            return state.response != nil
        }
        if decided { timer.cancel() }
    }

    /// Keeps the handler task so ``finish(_:)`` can cancel it; cancels it at once if the
    /// answer is already decided.
    func adopt(_ task: Task<Void, Never>) {
        let decided = state.withLock { state in
            if state.response == nil {
                if state.task == nil { state.task = task } else { state.moreTasks.append(task) }
            }
            return state.response != nil
        }
        if decided { task.cancel() }
    }
}
