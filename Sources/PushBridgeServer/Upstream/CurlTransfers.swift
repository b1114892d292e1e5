import CCurl

/// The transfers one multi handle drives, on the one thread that drives it (the upstream I/O
/// thread or an event loop): starts them, reusing idle easy handles; hands each finished one
/// its result; fails them all when that thread stops. Not `Sendable`: confined to that thread.
final class CurlTransfers {
    /// A request waiting to be started.
    struct Pending: Sendable {
        var request: UpstreamRequest
        var start: ContinuousClock.Instant
        var continuation: UnsafeContinuation<UpstreamResponse, Never>
    }

    /// The multi handle.
    let multi: CurlMulti
    private let configuration: UpstreamClientConfiguration
    private var running: [UnsafeMutableRawPointer: CurlEasyTransfer] = [:]
    /// Easy handles whose call ended, for the next calls (at most `maxIdleConnections`).
    private var idle: [CurlEasyHandle] = []
    /// The shared header lists of this thread's calls, one per app and configuration.
    let headerLists: CurlHeaderCache

    /// Transfers driven by a new multi handle.
    init(configuration: UpstreamClientConfiguration) throws(UpstreamFailure) {
        self.configuration = configuration
        headerLists = CurlHeaderCache(userAgent: configuration.userAgent)
        multi = try CurlMulti(maxIdleConnections: configuration.maxIdleConnections)
    }

    deinit {
        // Before the transfers (and their easy handles) and then the multi handle are freed.
        for easy in running.keys { multi.remove(easy) }
    }

    /// Whether no transfer is in flight.
    var isEmpty: Bool { running.isEmpty }

    /// Prepares `p`'s transfer and adds it to the multi handle, or resumes its caller with the
    /// failure (nothing sent) when it cannot be.
    func start(_ p: Pending) {
        let transfer: CurlEasyTransfer
        do {
            let easy: CurlEasyHandle
            let addUserAgent = !Self.namesUserAgent(p.request.headers) && !Self.namesUserAgent(p.request.callHeaders)
            let shared = try headerLists.list(for: p.request.headers, addUserAgent: addUserAgent)
            if let reused = idle.popLast() { easy = reused } else { easy = try CurlEasyHandle() }
            transfer = try CurlEasyTransfer(request: p.request, easy: easy, start: p.start, continuation: p.continuation, configuration: configuration,
                                            sharedHeaders: shared)
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

    /// Whether one of `headers` is a `User-Agent` (then the configured one is not added).
    static func namesUserAgent(_ headers: [(name: String, value: String)]) -> Bool {
        headers.contains { $0.name.utf8.count == 10 && $0.name.lowercased() == "user-agent" }
    }

    /// Resumes the caller of every transfer that has finished.
    func collectFinished() {
        multi.drainCompleted { easy, code in
            guard let transfer = running.removeValue(forKey: easy) else { return }
            multi.remove(easy)
            transfer.finish(code)
            if idle.count < configuration.maxIdleConnections { idle.append(transfer.easy) }
        }
    }

    /// Fails every transfer in flight with ``shutDown(_:notSent:)`` (provably not sent when
    /// not one byte of it was written) and drops the idle handles.
    func failAll() {
        let stopping = running
        running = [:]
        for (easy, transfer) in stopping {
            multi.remove(easy)
            transfer.complete(.failure(Self.shutDown(transfer.start, notSent: transfer.requestBytesWritten == 0)))
        }
        idle = []
    }

    /// The failure of a call the client's stop (or its loop's) cut short.
    static func shutDown(_ start: ContinuousClock.Instant, notSent: Bool) -> UpstreamFailure {
        UpstreamFailure(kind: .shutDown, message: "the upstream client was shut down", provablyNotSent: notSent, latency: ContinuousClock.now - start)
    }
}
