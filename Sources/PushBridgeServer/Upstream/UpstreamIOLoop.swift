import CCurl
import Synchronization

/// The upstream I/O thread's state: the transfers of callers on no event loop (the scheduler,
/// the shadow queue, the CLI, tests), driven with `curl_multi_poll`.
///
/// Why `@unchecked Sendable` is sound: the loop is shared between the I/O thread and callers
/// of `submit`/`stop`, and those two only touch `inbox` (a `Mutex`) and `multi.wakeup()`
/// (`curl_multi_wakeup` is thread-safe by libcurl's contract). Everything else — `transfers`
/// and every `CurlEasyTransfer` in it — is used only inside `run()`, on the one thread that
/// runs it.
final class UpstreamIOLoop: @unchecked Sendable {
    /// A request waiting to be picked up by the I/O thread.
    typealias Pending = CurlTransfers.Pending

    private struct Inbox {
        var pending: [Pending] = []
        var stopping = false
    }

    private let transfers: CurlTransfers
    private var multi: CurlMulti { transfers.multi }
    private let inbox = Mutex(Inbox())
    private let finished = Mutex(false)

    init(configuration: UpstreamClientConfiguration) throws(UpstreamFailure) {
        transfers = try CurlTransfers(configuration: configuration)
    }

    /// Hands a request to the I/O thread; `false` once the loop is stopping.
    func submit(_ pending: Pending) -> Bool {
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.stopping else { return false }
            inbox.pending.append(pending)
            return true
        }
        if accepted { multi.wakeup() }
        return accepted
    }

    /// Asks the I/O thread to fail everything and exit.
    func stop() {
        inbox.withLock { $0.stopping = true }
        multi.wakeup()
    }

    /// Whether `run()` has returned.
    var isFinished: Bool { finished.withLock { $0 } }

    /// The thread body: perform, collect finished transfers, poll, until stopped.
    func run() {
        while true {
            let (work, stopping) = inbox.withLock { inbox in
                defer { inbox.pending = [] }
                return (inbox.pending, inbox.stopping)
            }
            if stopping {
                for p in work { p.continuation.resume(returning: .failure(CurlTransfers.shutDown(p.start, notSent: true))) }
                break
            }
            for p in work { transfers.start(p) }
            multi.perform()
            transfers.collectFinished()
            multi.poll(timeoutMilliseconds: 1000)
        }
        transfers.failAll()
        finished.withLock { $0 = true }
    }
}
