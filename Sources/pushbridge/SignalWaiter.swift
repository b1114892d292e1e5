import Dispatch
import Glibc

/// Waits for SIGINT or SIGTERM without a polling loop (used by `serve` and `sandbox`).
enum SignalWaiter {
    /// Returns once SIGINT or SIGTERM arrives.
    static func waitForTermination() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queue = DispatchQueue(label: "pushbridge.signals")
            let once = Once(continuation)
            queue.sync {
                for sig in [SIGINT, SIGTERM] {
                    signal(sig, SIG_IGN)
                    let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
                    source.setEventHandler { once.fire() }
                    source.resume()
                    once.sources.append(source)
                }
            }
        }
    }

    /// Resumes the continuation once and keeps the sources alive until then.
    private final class Once: @unchecked Sendable {
        // Every member is only touched on the signal queue (set-up runs there with `sync`).
        var sources: [DispatchSourceSignal] = []
        private var continuation: CheckedContinuation<Void, Never>?
        init(_ c: CheckedContinuation<Void, Never>) { continuation = c }
        func fire() {
            continuation?.resume()
            continuation = nil
            sources.forEach { $0.cancel() }
            sources = []
        }
    }
}
