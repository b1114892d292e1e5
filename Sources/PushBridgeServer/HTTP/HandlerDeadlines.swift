import Synchronization

/// Holds every running handler to the server's deadline with one timer per request on the
/// event loop that dispatched it (``EventLoop/schedule(at:_:)``): the loop's `epoll_wait`
/// times out when one is due, so no thread of its own wakes for them. The timer is cancelled
/// when the request's answer is decided (``HTTPExchange/finish(_:)``), under a lock, waking
/// no one.
final class HandlerDeadlines: Sendable {
    /// How long a handler may run.
    let deadline: Duration

    private let expire: @Sendable (HTTPExchange) -> Bool
    private let stopped = Atomic(false)

    /// Watches requests from now on; `expire` is called (on the request's loop) for each one
    /// still undecided `deadline` after it was watched, and returns whether to watch it for
    /// another `deadline` from then.
    init(deadline: Duration, expire: @escaping @Sendable (HTTPExchange) -> Bool) {
        self.deadline = deadline
        self.expire = expire
    }

    /// Watches `exchange` from now: if it is not answered within ``deadline``, `expire` gets it.
    /// The exchange is told who watches it first, so the timer's action captures the exchange
    /// alone (a closure capturing one object needs no context of its own: the watcher and the
    /// exchange captured together were one allocation a request).
    func watch(_ exchange: HTTPExchange) {
        guard !stopped.load(ordering: .acquiring) else { return }
        exchange.watched(by: self)
        exchange.holdDeadline(EventLoop.schedule(at: .now.advanced(by: deadline)) { exchange.deadlineDue() })
    }

    /// `exchange`'s deadline passed (``HTTPExchange/deadlineDue()``): hands it to `expire` if it
    /// is still undecided, and watches it again if `expire` asks.
    func due(_ exchange: HTTPExchange) {
        guard !stopped.load(ordering: .acquiring), !exchange.isDecided else { return }
        if expire(exchange) { watch(exchange) }
    }

    /// Stops holding requests to the deadline (timers still set do nothing when they fire).
    func stop() {
        stopped.store(true, ordering: .releasing)
    }
}
