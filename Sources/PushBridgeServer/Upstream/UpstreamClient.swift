import Foundation

/// Sends requests to the upstream over libcurl's multi interface, driven by one dedicated
/// thread, and resumes each caller when its answer (or failure) is complete.
///
/// It is `Sendable` because its only state is the immutable configuration and the I/O loop,
/// whose cross-thread surface is a `Mutex`-protected inbox plus `curl_multi_wakeup` (see
/// `UpstreamIOLoop`); every curl handle is otherwise touched only on the I/O thread.
/// Connections are kept alive and reused across calls; every call has a hard deadline.
public final class UpstreamClient: Sendable {
    /// How this client connects.
    public let configuration: UpstreamClientConfiguration
    private let loop: UpstreamIOLoop

    /// Starts the I/O thread. Throws only if libcurl cannot create its multi handle.
    public init(configuration: UpstreamClientConfiguration = UpstreamClientConfiguration()) throws(UpstreamFailure) {
        self.configuration = configuration
        let loop = try UpstreamIOLoop(configuration: configuration)
        self.loop = loop
        let thread = Thread { loop.run() }
        thread.name = "pushbridge-upstream"
        thread.start()
    }

    deinit { loop.stop() }

    /// Sends one request and returns its answer, any status, or a classified transport failure.
    /// Never throws and never waits longer than the request's deadline (plus scheduling slack).
    public func send(_ request: UpstreamRequest) async -> UpstreamResponse {
        let start = ContinuousClock.now
        // Unchecked: every path resumes exactly once (a failed submit here; otherwise the I/O
        // thread, through `CurlEasyTransfer.complete`, which guards against a second resume).
        return await withUnsafeContinuation { continuation in
            let pending = UpstreamIOLoop.Pending(request: request, start: start, continuation: continuation)
            if !loop.submit(pending) {
                let failure = UpstreamFailure(kind: .shutDown, message: "the upstream client was shut down", provablyNotSent: true, latency: ContinuousClock.now - start)
                continuation.resume(returning: .failure(failure))
            }
        }
    }

    /// Stops the I/O thread: calls in flight and queued fail with `.shutDown`, later calls fail
    /// at once. Returns when the thread has failed them all (bounded by one poll wake-up).
    public func shutdown() {
        loop.stop()
        while !loop.isFinished { usleep(1000) }
    }
}
