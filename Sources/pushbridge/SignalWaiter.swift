import Dispatch
import Glibc
import Synchronization

/// Waits for SIGINT or SIGTERM without a polling loop (used by `serve` and `sandbox`).
///
/// Install it first, before anything else starts: the handlers are then in place long before
/// the process says it is listening, and a signal that arrives before ``wait()`` is called is
/// remembered. (Installed only at the wait, a SIGTERM sent right after "listening" could land
/// after the signal was set to be ignored but before libdispatch's source took it over, and
/// be lost: the process then never stopped. Seen once in the crash test, whose last SIGTERM
/// follows the last start at once.)
final class SignalWaiter: Sendable {
    private enum State {
        case waiting
        case arrived
        case waiter(CheckedContinuation<Void, Never>)
    }

    private let state = Mutex(State.waiting)
    /// The sources stay alive with the waiter; touched only on `queue` after set-up.
    private nonisolated(unsafe) var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "pushbridge.signals")

    /// Starts listening for SIGINT and SIGTERM now.
    init() {
        queue.sync {
            for sig in [SIGINT, SIGTERM] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
                source.setEventHandler { [weak self] in self?.arrived() }
                source.resume()
                sources.append(source)
            }
        }
    }

    /// Returns once SIGINT or SIGTERM has arrived (at once if one already has).
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if case .arrived = state { return true }
                state = .waiter(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func arrived() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state = .arrived }
            if case .waiter(let continuation) = state { return continuation }
            return nil
        }
        waiter?.resume()
    }
}
