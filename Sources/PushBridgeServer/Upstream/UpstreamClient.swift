import Foundation
import Synchronization

/// Sends requests to the upstream over libcurl's multi interface and resumes each caller when
/// its answer (or failure) is complete. A call made on an ``EventLoop``'s thread (a request's
/// task) is driven by that loop through the multi socket API (``UpstreamLoopMulti``, one multi
/// handle per loop) and never leaves it; any other call goes to one dedicated I/O thread
/// (``UpstreamIOLoop``).
///
/// It is `Sendable` because its state is the immutable configuration, the I/O loop, whose
/// cross-thread surface is a `Mutex`-protected inbox plus `curl_multi_wakeup`, the loops'
/// multis, each touched only on its loop's thread, and atomics; every curl handle is touched
/// only on the thread that drives it.
/// Connections are kept alive and reused across calls (per loop and on the I/O thread); every
/// call has a hard deadline.
public final class UpstreamClient: Sendable {
    /// How this client connects.
    public let configuration: UpstreamClientConfiguration
    private let loop: UpstreamIOLoop
    /// The key of this client's multis in ``EventLoop/locals``.
    private let key = UpstreamClient.keys.add(1, ordering: .relaxed).newValue
    private static let keys = Atomic<UInt64>(0)
    /// The event loops this client has a multi on (to fail their transfers at its stop).
    private let loops = Mutex<[WeakLoop]>([])
    private let stopped = Atomic(false)
    private let onLoops = Atomic(0)
    private let onIOThread = Atomic(0)

    private struct WeakLoop: @unchecked Sendable {
        weak var loop: EventLoop?
    }

    /// Starts the I/O thread. Throws only if libcurl cannot create its multi handle.
    public init(configuration: UpstreamClientConfiguration = UpstreamClientConfiguration()) throws(UpstreamFailure) {
        self.configuration = configuration
        let loop = try UpstreamIOLoop(configuration: configuration)
        self.loop = loop
        let thread = Thread(named: "pb-upstream-io") { loop.run() }
        thread.start()
    }

    deinit {
        loop.stop()
        forEachLoopMulti(drop: true) { $0.failAll() }
    }

    /// Sends one request and returns its answer, any status, or a classified transport failure.
    /// Never throws and never waits longer than the request's deadline (plus scheduling slack).
    public func send(_ request: UpstreamRequest) async -> UpstreamResponse {
        let start = ContinuousClock.now
        // Unchecked: every path resumes exactly once (a failed start here; otherwise the thread
        // driving the transfer, through `CurlEasyTransfer.complete`, which guards against a
        // second resume).
        return await withUnsafeContinuation { continuation in
            let pending = CurlTransfers.Pending(request: request, start: start, continuation: continuation)
            if let eventLoop = EventLoop.current {
                onLoops.add(1, ordering: .relaxed)
                do throws(UpstreamFailure) {
                    guard !stopped.load(ordering: .acquiring) else { throw CurlTransfers.shutDown(start, notSent: true) }
                    try multi(on: eventLoop).start(pending)
                } catch {
                    var failure = error
                    failure.latency = ContinuousClock.now - start
                    continuation.resume(returning: .failure(failure))
                }
                return
            }
            onIOThread.add(1, ordering: .relaxed)
            if !loop.submit(pending) {
                continuation.resume(returning: .failure(CurlTransfers.shutDown(start, notSent: true)))
            }
        }
    }

    /// How many calls were carried on event loops and on the I/O thread.
    var callsCarried: (onLoops: Int, onIOThread: Int) { (onLoops.load(ordering: .relaxed), onIOThread.load(ordering: .relaxed)) }

    /// Stops the I/O thread: calls in flight and queued fail with `.shutDown`, later calls fail
    /// at once. Returns when the thread has failed them all (bounded by one poll wake-up); calls
    /// in flight on event loops are failed by their loops soon after.
    public func shutdown() {
        stopped.store(true, ordering: .releasing)
        forEachLoopMulti(drop: false) { $0.failAll() }
        loop.stop()
        while !loop.isFinished { usleep(1000) }
    }

    /// This client's multi on `eventLoop` (the caller is on its thread), made on first use.
    private func multi(on eventLoop: EventLoop) throws(UpstreamFailure) -> UpstreamLoopMulti {
        if let existing = eventLoop.locals[key] as? UpstreamLoopMulti { return existing }
        let made = try UpstreamLoopMulti(loop: eventLoop, configuration: configuration)
        eventLoop.locals[key] = made
        loops.withLock { $0.append(WeakLoop(loop: eventLoop)) }
        return made
    }

    /// Runs `body` on each loop's thread with this client's multi there (loops that stopped
    /// have failed theirs already), then forgets the multi if `drop`.
    private func forEachLoopMulti(drop: Bool, _ body: @escaping @Sendable (UpstreamLoopMulti) -> Void) {
        let key = key
        for entry in loops.withLock({ $0 }) {
            guard let eventLoop = entry.loop else { continue }
            _ = eventLoop.push(.closure {
                guard let multi = eventLoop.locals[key] as? UpstreamLoopMulti else { return }
                body(multi)
                if drop { eventLoop.locals[key] = nil }
            })
        }
    }
}
