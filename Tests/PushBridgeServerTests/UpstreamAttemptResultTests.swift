import Testing
@testable import PushBridgeServer

/// `pushbridge_upstream_attempts_total{result}` keeps OpenPush's own 429 apart from the other
/// 4xx answers, so `deploy/prometheus/pushbridge.rules.yml` can page on it (issue 32).
struct UpstreamAttemptResultTests {
    /// A 429 is `429`, another 4xx stays `4xx`, a population gap stays one.
    @Test func openPush429IsCountedApart() throws {
        #expect(Metrics.attemptResult(status: 429, body: #"{"error":"rate_limited"}"#) == "429")
        #expect(Metrics.attemptResult(status: 400, body: #"{"error":"invalid"}"#) == "4xx")
        #expect(Metrics.attemptResult(status: 201, body: nil) == "2xx")
        #expect(Metrics.attemptResult(status: 503, body: nil) == "5xx")
        #expect(Metrics.attemptResult(status: nil, body: nil) == "error")

        let metrics = Metrics()
        metrics.recordUpstreamAttempt(result: Metrics.attemptResult(status: 429, body: nil))
        let series = try #require(PrometheusTextParser.parse(metrics.render())).filter { $0.name == "pushbridge_upstream_attempts_total" }
        #expect(series.map(\.labels) == [["result": "429"]])
    }
}
