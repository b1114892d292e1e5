import CCurl
import Synchronization

/// The I/O thread's state: the multi handle and the transfers in flight.
///
/// Why `@unchecked Sendable` is sound: the loop is shared between the I/O thread and callers
/// of `submit`/`stop`, and those two only touch `inbox` (a `Mutex`) and `multi.wakeup()`
/// (`curl_multi_wakeup` is thread-safe by libcurl's contract). Everything else — `multi`'s
/// other calls, `running`, every `CurlEasyTransfer` — is used only inside `run()`, on the one
/// thread that runs it.
final class UpstreamIOLoop: @unchecked Sendable {
    /// A request waiting to be picked up by the I/O thread.
    struct Pending: Sendable {
        var request: UpstreamRequest
        var start: ContinuousClock.Instant
        var continuation: UnsafeContinuation<UpstreamResponse, Never>
    }

    private struct Inbox {
        var pending: [Pending] = []
        var stopping = false
    }

    private let configuration: UpstreamClientConfiguration
    private let multi: CurlMulti
    private let inbox = Mutex(Inbox())
    private let finished = Mutex(false)
    private var running: [UnsafeMutableRawPointer: CurlEasyTransfer] = [:]
    /// Easy handles whose call ended, for the next calls (at most `maxIdleConnections`).
    private var idle: [CurlEasyHandle] = []

    init(configuration: UpstreamClientConfiguration) throws(UpstreamFailure) {
        self.configuration = configuration
        self.multi = try CurlMulti(maxIdleConnections: configuration.maxIdleConnections)
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
                for p in work { p.continuation.resume(returning: .failure(Self.shutDown(p.start, notSent: true))) }
                break
            }
            for p in work { start(p) }
            multi.perform()
            multi.drainCompleted { easy, code in
                guard let transfer = running.removeValue(forKey: easy) else { return }
                multi.remove(easy)
                transfer.finish(code)
                if idle.count < configuration.maxIdleConnections { idle.append(transfer.easy) }
            }
            multi.poll(timeoutMilliseconds: 1000)
        }
        for (easy, transfer) in running {
            multi.remove(easy)
            transfer.complete(.failure(Self.shutDown(transfer.start, notSent: transfer.requestBytesWritten == 0)))
        }
        running = [:]
        idle = []
        finished.withLock { $0 = true }
    }

    private func start(_ p: Pending) {
        let transfer: CurlEasyTransfer
        do {
            let easy: CurlEasyHandle
            if let reused = idle.popLast() { easy = reused } else { easy = try CurlEasyHandle() }
            transfer = try CurlEasyTransfer(request: p.request, easy: easy, start: p.start, continuation: p.continuation, configuration: configuration)
        } catch {
            var failure = error
            failure.latency = ContinuousClock.now - p.start
            p.continuation.resume(returning: .failure(failure))
            return
        }
        let code = multi.add(transfer.handle)
        guard code == CURLM_OK else {
            let message = "curl_multi_add_handle: " + String(cString: curl_multi_strerror(code))
            transfer.complete(.failure(UpstreamFailure(kind: .other, message: message, provablyNotSent: true, latency: ContinuousClock.now - p.start)))
            return
        }
        running[transfer.handle] = transfer
    }

    private static func shutDown(_ start: ContinuousClock.Instant, notSent: Bool) -> UpstreamFailure {
        UpstreamFailure(kind: .shutDown, message: "the upstream client was shut down", provablyNotSent: notSent, latency: ContinuousClock.now - start)
    }
}
