import CMicroHTTPD
import Synchronization

/// The part of ``HTTPServer`` that libmicrohttpd's callbacks reach through their `cls`
/// pointer: the configuration, the handler, and the registry of open requests.
final class HTTPServerCore: Sendable {
    /// Requests the server knows about, guarded by ``registry``.
    struct Registry: Sendable {
        /// Set by `stop`: new requests are answered 503 instead of reaching the handler.
        var draining = false
        /// Requests between their request line and their completion notice.
        var open = 0
        /// Requests whose handler runs, by identity.
        var running: [ObjectIdentifier: HTTPExchange] = [:]
    }

    let configuration: HTTPServerConfiguration
    let handler: HTTPHandler
    let registry = Mutex(Registry())
    /// Every task the server starts (handlers, answers recorded through the exit, records of
    /// libmicrohttpd's refusals), so that a stop leaves none running.
    let tasks: ServerTasks
    /// Holds every running handler to ``HTTPServerConfiguration/handlerDeadline`` (a timer on
    /// its loop, rather than a thread or a timer task).
    let deadlines: HandlerDeadlines
    /// Holds every connection to ``HTTPServerConfiguration/requestTimeout`` while it delivers
    /// its request, and keeps a reserve of connections for prompt callers.
    let connections: ConnectionWatch
    /// The handler tasks kept between requests on each loop (``HandlerWorkers``).
    let workers = HandlerWorkers()

    init(configuration: HTTPServerConfiguration, handler: @escaping HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
        self.connections = ConnectionWatch(configuration: configuration)
        let tasks = ServerTasks()
        self.tasks = tasks
        self.deadlines = HandlerDeadlines(deadline: configuration.handlerDeadline) { [configuration, tasks] exchange in
            Self.deadlinePassed(exchange, configuration: configuration, tasks: tasks)
        }
    }

    /// The handler of `exchange` passed its deadline (``RequestEnding/Event/deadlinePassed(_:throughExit:)``);
    /// returns whether to watch it for one more. With an exit, the first time the server
    /// claims the request and answers `504` through the exit (unless the handler claimed it
    /// first: it is leaving by its exit and gets the extra deadline to finish); the second
    /// time, it answers through the responder without the exit (the exit is stuck). Without
    /// an exit, the responder's `504` at once.
    private static func deadlinePassed(_ exchange: HTTPExchange, configuration: HTTPServerConfiguration, tasks: ServerTasks) -> Bool {
        let failure = HTTPServerFailure.handlerDeadlineExceeded(configuration.handlerDeadline)
        let asked = exchange.state.withLock { $0.request } ?? exchange.headOnlyRequest()
        switch exchange.ending.on(.deadlinePassed(failure, throughExit: configuration.exit != nil)) {
        case .recordThroughExit(let failure):
            guard let exit = configuration.exit else { return false }
            // Not adopted: answering the exchange cancels its adopted tasks, and this one must
            // finish its record.
            tasks.spawn { exchange.finish(await exit.answer(failure, to: asked), from: .server) }
            return true
        case .watchAgain:
            return true
        case .respond(let failure):
            exchange.deliver(configuration.failureResponder(failure, asked))
            return false
        default:
            return false
        }
    }

    deinit {
        deadlines.stop()
        connections.stop()
    }

    // MARK: Lifecycle of one request

    /// A request line arrived.
    func opened(target: String) -> HTTPExchange {
        registry.withLock { $0.open += 1 }
        return HTTPExchange(target: target, ticket: configuration.exit?.arrived(), loop: EventLoop.current)
    }

    /// libmicrohttpd is done with the request (sent, failed or shut down). `refusal` (the
    /// status queued and the peer's address) is set when it ended the request on an error
    /// with an answer queued: if the handler had not been reached yet (head or body not all
    /// in), that answer is libmicrohttpd's own refusal, which is recorded.
    func closed(_ exchange: HTTPExchange, refusedByLibrary refusal: (status: Int, remote: String)? = nil) {
        if let refusal { recordLibraryRefusal(exchange, status: refusal.status, remote: refusal.remote) }
        // A request closed while its handler runs (daemon shutdown) must not be resumed later.
        exchange.close()
        // Called once per exchange (libmicrohttpd's completion notice clears `*req_cls`).
        exchange.loop?.exchangesOpen.subtract(1, ordering: .relaxed)
        registry.withLock { registry in
            registry.open -= 1
            registry.running[ObjectIdentifier(exchange)] = nil
        }
    }

    /// Decides `exchange`'s answer, made by `side`, if nobody has yet
    /// (``HTTPExchange/finish(_:from:)``). Returns whether this call decided it.
    @discardableResult
    func finish(_ exchange: HTTPExchange, with response: HTTPResponse, from side: RequestEnding.Side) -> Bool {
        guard exchange.finish(response, from: side) else { return false }
        registry.withLock { $0.running[ObjectIdentifier(exchange)] = nil }
        return true
    }

    // MARK: The access handler

    /// One call of libmicrohttpd's access handler for `exchange`; see `MHD_AccessHandlerCallback`.
    func access(
        connection: OpaquePointer,
        method: String,
        version: String,
        head: UnsafePointer<CChar>?,
        upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>,
        exchange: HTTPExchange
    ) -> MHD_Result {
        let limit = configuration.maxBodyBytes
        switch exchange.state.withLock({ $0.phase }) {
        case .awaitingHeaders:
            let headers = MHDConnection.headers(of: connection, head: head)
            let remoteAddress = MHDConnection.remoteAddress(of: connection)
            let keepAlive = Self.staysOpen(version: version, headers: headers) ? configuration.advertisedKeepAliveSeconds : nil
            exchange.state.withLock { state in
                state.phase = .receivingBody
                state.method = method
                state.headers = headers
                state.remoteAddress = remoteAddress
                state.keepAliveSeconds = keepAlive
            }
            let limits = HTTPHeadRules.Limits(headBytes: configuration.maxHeadBytes, targetBytes: configuration.maxRequestTargetBytes)
            if let problem = HTTPHeadRules.problem(method: method, target: exchange.target, version: version,
                                                   headBytes: Int(pb_mhd_request_header_size(connection)), headers: headers, limits: limits) {
                return refuse(.malformedHead(field: problem.field, rule: problem.rule, status: problem.status), exchange, on: connection)
            }
            let declared = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) }
            if let declared, declared > limit { return refuseTooLarge(exchange, on: connection) }
            return .YES

        case .receivingBody:
            let size = uploadSize.pointee
            if size > 0 {
                guard let upload else { return .NO }
                exchange.state.withLock { state in
                    if state.body.count + size <= limit {
                        state.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: size))
                    } else {
                        // libmicrohttpd cannot answer mid-body: drop the rest, answer at its end.
                        state.phase = .discardingBody
                        state.discarded = state.body.count + size
                        state.body = []
                    }
                }
                uploadSize.pointee = 0
                return .YES
            }
            let request = exchange.state.withLock { state in
                // The headers taken out, so the request lower-cases their names in place, and
                // kept again as the request has them (their names lower-cased: every later
                // reader lower-cases or compares without case).
                let headers = state.headers
                state.headers = []
                let request = HTTPRequest(
                    method: state.method, target: exchange.target, headers: headers,
                    body: state.body, remoteAddress: state.remoteAddress, ticket: exchange.ticket)
                state.headers = request.headers
                state.body = []
                state.request = request
                return request
            }
            return dispatch(request, for: exchange, on: connection)

        case .discardingBody:
            let size = uploadSize.pointee
            guard size > 0 else { return refuseTooLarge(exchange, on: connection) }
            uploadSize.pointee = 0
            let discarded = exchange.state.withLock { state in
                state.discarded += size
                return state.discarded
            }
            // Past twice the limit (at least 1 MiB more) the caller is not worth waiting for.
            return discarded - limit > max(limit, 1 << 20) ? .NO : .YES

        case .suspended:
            // Resumed: the answer is decided; queue it from the thread that owns the connection.
            let response = exchange.state.withLock { state in
                state.phase = .answered
                return state.response
            }
            guard let response else { return .NO }
            return queue(response, exchange, on: connection)

        case .answered:
            // Body bytes still arriving after an early 413: stop reading and close.
            return uploadSize.pointee > 0 ? .NO : .YES
        }
    }

    /// Answers 413 before the rest of the body is read.
    private func refuseTooLarge(_ exchange: HTTPExchange, on connection: OpaquePointer) -> MHD_Result {
        exchange.state.withLock { $0.body = [] }
        // The unread rest of the body makes the connection unusable for another request.
        return refuse(.bodyTooLarge(limit: configuration.maxBodyBytes), exchange, on: connection)
    }

    /// Answers a refusal the server makes itself (a body over the limit, a head that breaks
    /// ``HTTPHeadRules``) and closes the connection: its framing cannot be trusted for a next
    /// request.
    private func refuse(_ failure: HTTPServerFailure, _ exchange: HTTPExchange, on connection: OpaquePointer) -> MHD_Result {
        answerRecorded(failure, exchange.headOnlyRequest(), exchange, on: connection)
    }

    /// Answers `failure` with `Connection: close` with what the configured exit returns, once
    /// it returns (its audit row and access line written): suspended like a running handler,
    /// under its deadline. Without an exit, the responder's answer at once.
    private func answerRecorded(_ failure: HTTPServerFailure, _ request: HTTPRequest, _ exchange: HTTPExchange, on connection: OpaquePointer) -> MHD_Result {
        guard let exit = configuration.exit else {
            return answerNow(Self.closing(configuration.failureResponder(failure, request)), exchange, on: connection)
        }
        // The server answers: a deadline passed while the exit records finds the answer claimed.
        _ = exchange.ending.on(.serverAnswers(failure))
        // The answer waits for the record: suspended like a running handler, under its deadline.
        registry.withLock { $0.running[ObjectIdentifier(exchange)] = exchange }
        exchange.state.withLock { state in
            state.request = request
            state.phase = .suspended
            exchange.suspend(connection)
        }
        let work = tasks.spawn {
            let response = await exit.answer(failure, to: request)
            self.finish(exchange, with: Self.closing(response), from: .server)
        }
        exchange.adopt(work)
        deadlines.watch(exchange)
        return .YES
    }

    /// `response` with `Connection: close`.
    private static func closing(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.append((name: "Connection", value: "close"))
        return response
    }

    /// Queues `response` from inside the access handler, marking the exchange answered.
    private func answerNow(_ response: HTTPResponse, _ exchange: HTTPExchange, on connection: OpaquePointer) -> MHD_Result {
        connections.received(MHDConnection.key(connection))
        exchange.finish(response, from: .server)
        exchange.state.withLock { $0.phase = .answered }
        return queue(response, exchange, on: connection)
    }

    /// Queues `response`, advertising the keep-alive timeout when the connection stays open
    /// after it (see ``HTTPServerConfiguration/advertisedKeepAliveSeconds``).
    private func queue(_ response: HTTPResponse, _ exchange: HTTPExchange, on connection: OpaquePointer) -> MHD_Result {
        // The Keep-Alive line goes to libmicrohttpd after the response's own headers, not
        // appended to a copy of them (a new array on every answer); names compared without
        // lower-cased copies.
        let closes = response.headers.contains { $0.name.isASCIICaseInsensitive("connection") && $0.value.lowercased().contains("close") }
        if !closes, let seconds = exchange.state.withLock({ $0.keepAliveSeconds }), response.header("Keep-Alive") == nil {
            return MHDConnection.queue(response, keepAlive: "timeout=\(seconds)", heldBy: exchange, on: connection)
        }
        return MHDConnection.queue(response, heldBy: exchange, on: connection)
    }

    /// Whether libmicrohttpd keeps the connection open after answering a request of `version`
    /// with `headers` (HTTP/1.1 unless it asks to close; HTTP/1.0 only when it asks to keep alive).
    static func staysOpen(version: String, headers: [(name: String, value: String)]) -> Bool {
        let tokens = headers.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: [" ", "\t"]) } }
        if tokens.contains("close") { return false }
        return version.uppercased() == "HTTP/1.1" || tokens.contains("keep-alive")
    }

    /// Records a request libmicrohttpd ended on an error before the handler had it: it
    /// refused the head or the chunked body itself and sent its own answer. The record
    /// (through ``HTTPServerConfiguration/exit``) comes after that answer.
    private func recordLibraryRefusal(_ exchange: HTTPExchange, status: Int, remote: String) {
        guard let exit = configuration.exit else { return }
        let stage = exchange.state.withLock { state -> HTTPServerFailure.LibraryRefusal? in
            switch state.phase {
            case .awaitingHeaders: .head
            case .receivingBody: .body
            case .discardingBody, .suspended, .answered: nil
            }
        }
        guard let stage else { return }
        let request = exchange.headOnlyRequest(remoteAddress: remote)
        tasks.spawn { _ = await exit.answer(.refusedByLibrary(stage, status: status), to: request) }
    }

    /// Records that libmicrohttpd refused a request line on a connection from `remote` that
    /// never had one accepted (its own 414, 505 or 400, whose status it does not report).
    func recordRequestLineRefusal(remote: String) {
        guard let exit = configuration.exit else { return }
        let request = HTTPRequest(method: "", target: "", remoteAddress: remote, ticket: exit.arrived())
        tasks.spawn { _ = await exit.answer(.refusedByLibrary(.requestLine, status: 0), to: request) }
    }

    /// Suspends the connection and runs the handler against a deadline.
    private func dispatch(_ request: HTTPRequest, for exchange: HTTPExchange, on connection: OpaquePointer) -> MHD_Result {
        connections.received(MHDConnection.key(connection))
        let accepted = registry.withLock { registry in
            if registry.draining { return false }
            registry.running[ObjectIdentifier(exchange)] = exchange
            return true
        }
        guard accepted else { return answerRecorded(.shuttingDown, request, exchange, on: connection) }
        let decidedEarly = exchange.state.withLock { state -> HTTPResponse? in
            if let response = state.response {
                state.phase = .answered
                return response
            }
            state.phase = .suspended
            exchange.suspend(connection)
            return nil
        }
        if let decidedEarly { return queue(decidedEarly, exchange, on: connection) }

        // Tracked as ``ServerTasks/spawn(_:)`` tracks its tasks, from here to the handler's
        // answer. On a loop, run by a task kept between requests (``HandlerWorkers``), with
        // the handler's body as the task's one closure when it is made.
        let tasks = self.tasks
        let id = tasks.register()
        let work: Task<Void, Never>
        if let loop = EventLoop.current {
            work = workers.run(HandlerWorkers.Job(request: request, exchange: exchange, id: id), on: loop) { [self] job in
                await answer(job)
            }
        } else {
            let handler = self.handler
            work = EventLoop.spawn {
                let response = await handler(request)
                self.finish(exchange, with: response, from: .handler)
                tasks.ended(id)
            }
        }
        tasks.hold(work, id: id)
        exchange.adopt(work)
        deadlines.watch(exchange)
        return .YES
    }

    /// Runs `job`'s handler and finishes its exchange with the answer, then ends its
    /// registration. Returns whether the handler's answer is the one sent (the server did not
    /// answer first, so nothing took the task's handle to cancel it): only then may the task
    /// that ran it run another request.
    private func answer(_ job: HandlerWorkers.Job) async -> Bool {
        let response = await handler(job.request)
        let sent = finish(job.exchange, with: response, from: .handler)
        tasks.ended(job.id)
        return sent
    }

    // MARK: Stopping

    /// Stops handing new requests to the handler.
    func beginDraining() {
        registry.withLock { $0.draining = true }
    }

    /// Requests between request line and completion.
    var openRequests: Int { registry.withLock { $0.open } }

    /// Requests whose handler runs (their connections are suspended).
    var runningHandlers: Int { registry.withLock { $0.running.count } }

    /// A stop's grace period is over: hands every request whose handler still runs to the
    /// exit, which answers it `503` once its record is written (the handler's row completed,
    /// the request id, the access line and the metric, like the answer at a deadline); the
    /// server claims each request's answer first (``RequestEnding/Event/serverAnswers(_:)``). Returns those requests and the ones whose
    /// ticket was claimed before (a handler in its exit, a server answer being recorded): the
    /// ones still unanswered after a wait go to ``abandonRunning()``. Nothing without an exit.
    func answerRunningThroughExit() -> [HTTPExchange] {
        guard let exit = configuration.exit else { return [] }
        let running = registry.withLock { registry in
            registry.draining = true
            return Array(registry.running.values)
        }
        var recording: [HTTPExchange] = []
        for exchange in running {
            if case .recordThroughExit(let failure) = exchange.ending.on(.serverAnswers(.stoppedBeforeAnswer)) {
                let request = exchange.state.withLock { $0.request } ?? exchange.headOnlyRequest()
                // Not adopted: answering the exchange cancels its adopted tasks, and this one
                // must finish its record.
                tasks.spawn { self.finish(exchange, with: await exit.answer(failure, to: request), from: .server) }
            }
            recording.append(exchange)
        }
        return recording
    }

    /// Answers every request whose handler still runs with the responder's 503, without the
    /// exit (none configured, or it did not answer in time: an audit that does not commit),
    /// and resumes its connection.
    func abandonRunning() {
        let running = registry.withLock { registry in
            registry.draining = true
            return Array(registry.running.values)
        }
        for exchange in running {
            guard case .respond(let failure) = exchange.ending.on(.abandoned(.stoppedBeforeAnswer)) else { continue }
            let request = exchange.state.withLock { $0.request } ?? exchange.headOnlyRequest()
            if exchange.deliver(configuration.failureResponder(failure, request)) {
                registry.withLock { $0.running[ObjectIdentifier(exchange)] = nil }
            }
        }
    }
}
