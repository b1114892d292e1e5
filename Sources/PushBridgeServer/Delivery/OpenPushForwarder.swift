import Foundation
import PushBridgeCore

/// Sends translated requests to OpenPush with the app's REST key.
public struct OpenPushForwarder: Sendable {
    /// The HTTP client.
    public let client: UpstreamClient
    /// OpenPush's base URL, without a trailing slash.
    public let baseURL: String
    /// Stamps each attempt's start (the delivery clock, so tests can drive it).
    public let clock: any DeliveryClock
    /// How many bytes of an upstream body the audit keeps.
    public static let auditBodyLimit = 8192
    /// Each key's shared headers, made once.
    private let keyHeaders = OpenPushKeyHeaders()

    /// A forwarder whose attempts are stamped by `clock`.
    public init(client: UpstreamClient, baseURL: String, clock: any DeliveryClock) {
        self.client = client
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.clock = clock
    }

    /// Sends one request; never throws: failures are results.
    public func send(_ request: OpenPushRequest, key: String, requestId: String) async -> (UpstreamResult, UpstreamAttempt) {
        let (response, attempt) = await exchange(request, key: key, requestId: requestId)
        return (UpstreamResultMapping.result(response), attempt)
    }

    /// Sends one request and returns OpenPush's raw answer (or the transport failure) with the
    /// attempt as the audit records it.
    public func exchange(_ request: OpenPushRequest, key: String, requestId: String, timeout: Duration? = nil) async -> (UpstreamResponse, UpstreamAttempt) {
        let started = clock.nowMilliseconds()
        let upstream = UpstreamRequest(
            method: request.method, url: request.url(on: baseURL),
            headers: keyHeaders.headers(for: key), requestId: requestId,
            body: request.bodyBytes, timeout: timeout)
        let response = await client.send(upstream)
        let latency = response.latency
        let ms = Double(latency.components.seconds) * 1000 + Double(latency.components.attoseconds) / 1e15
        var attempt = UpstreamAttempt(startedAt: started, latencyMs: ms)
        switch response {
        case .reply(let r):
            attempt.status = r.status
            attempt.body = String(decoding: r.body.prefix(Self.auditBodyLimit), as: UTF8.self)
        case .failure(let f):
            attempt.error = f.summary
            attempt.errorDetail = f.description
        }
        return (response, attempt)
    }
}
