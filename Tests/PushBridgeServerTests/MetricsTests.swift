import PushBridgeCore
import Testing
@testable import PushBridgeServer

struct MetricsTests {
    static func buckets(_ counts: [Int], _ name: String) -> String {
        let les = ["0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"]
        return zip(les, counts).map { "\(name)_bucket{le=\"\($0)\"} \($1)\n" }.joined()
    }

    @Test func goldenExposition() {
        let m = Metrics()
        m.recordRequest(dialect: .onesignal, route: .start, status: 200)
        m.recordRequest(dialect: .onesignal, route: .start, status: 200)
        m.recordRequest(dialect: nil, route: nil, status: 404)
        m.recordFindings([
            Finding(field: "notifications[0].ios_sound", kind: .dropped, message: "no sound"),
            Finding(field: "notifications[1].ios_sound", kind: .dropped, message: "no sound"),
            Finding(field: "contents.en", kind: .renamed, message: "alert.body"),
        ], dialect: .pushwoosh)
        m.observeUpstreamLatency(seconds: 0.003)
        m.observeUpstreamLatency(.milliseconds(200))
        m.recordUpstreamAttempt(result: "ok")
        m.recordUpstreamAttempt(result: "ok")
        m.recordUpstreamAttempt(result: UpstreamFailure.Kind.connectFailed.rawValue)
        m.setAuditQueueDepth(4)
        m.observeAuditWrite(seconds: 0.0005)
        m.recordShadowDropped()
        m.requestStarted()
        m.requestStarted()
        m.requestFinished()
        m.recordAuditPruned(200)
        m.recordAuditPruned(3)
        let expected = """
            # HELP pushbridge_requests_total Requests answered, by dialect, route and HTTP status.
            # TYPE pushbridge_requests_total counter
            pushbridge_requests_total{dialect="none",route="unknown",status="404"} 1
            pushbridge_requests_total{dialect="onesignal",route="start",status="200"} 2
            # HELP pushbridge_findings_total Translation findings, by dialect, field path and kind.
            # TYPE pushbridge_findings_total counter
            pushbridge_findings_total{dialect="pushwoosh",field="contents.en",kind="renamed"} 1
            pushbridge_findings_total{dialect="pushwoosh",field="notifications[].ios_sound",kind="dropped"} 2
            # HELP pushbridge_upstream_latency_seconds Latency of upstream (OpenPush) calls in seconds.
            # TYPE pushbridge_upstream_latency_seconds histogram

            """ + Self.buckets([0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2], "pushbridge_upstream_latency_seconds") + """
            pushbridge_upstream_latency_seconds_sum 0.203
            pushbridge_upstream_latency_seconds_count 2
            # HELP pushbridge_upstream_attempts_total Upstream call attempts, by result (population_gap: OpenPush cannot reach the phone yet, not an error).
            # TYPE pushbridge_upstream_attempts_total counter
            pushbridge_upstream_attempts_total{result="connect_failed"} 1
            pushbridge_upstream_attempts_total{result="ok"} 2
            # HELP pushbridge_population_gaps_total Requests whose audience was not on a provider yet (outcome not_on_openpush or not_on_legacy), by app: not errors.
            # TYPE pushbridge_population_gaps_total counter
            # HELP pushbridge_audit_queue_depth Audit rows waiting for the writer thread.
            # TYPE pushbridge_audit_queue_depth gauge
            pushbridge_audit_queue_depth 4
            # HELP pushbridge_audit_write_seconds Time to write (commit) audit rows in seconds.
            # TYPE pushbridge_audit_write_seconds histogram

            """ + Self.buckets(Array(repeating: 1, count: 14), "pushbridge_audit_write_seconds") + """
            pushbridge_audit_write_seconds_sum 0.0005
            pushbridge_audit_write_seconds_count 1
            # HELP pushbridge_shadow_dropped_total Shadow sends dropped.
            # TYPE pushbridge_shadow_dropped_total counter
            pushbridge_shadow_dropped_total 1
            # HELP pushbridge_shadow_skipped_total Shadow sends to OpenPush skipped: no slot live sends did not need within delivery.shadow_max_wait_ms.
            # TYPE pushbridge_shadow_skipped_total counter
            pushbridge_shadow_skipped_total 0
            # HELP pushbridge_inflight_requests Requests being handled now.
            # TYPE pushbridge_inflight_requests gauge
            pushbridge_inflight_requests 1
            # HELP pushbridge_audit_pruned_rows_total Audit rows deleted by retention.
            # TYPE pushbridge_audit_pruned_rows_total counter
            pushbridge_audit_pruned_rows_total 203
            # HELP pushbridge_audit_unavailable_total Requests refused with 503 because the audit database could not be reached.
            # TYPE pushbridge_audit_unavailable_total counter
            pushbridge_audit_unavailable_total 0
            # HELP pushbridge_log_lines_suppressed_total Finding log lines held back, by app and reason (per_request_cap, identical_rate).
            # TYPE pushbridge_log_lines_suppressed_total counter

            """
        #expect(m.render() == expected)
        #expect(PrometheusTextParser.parse(m.render()) != nil)
    }

    @Test func histogramBucketsAreCumulative() throws {
        let m = Metrics()
        for seconds in [0.0005, 0.001, 0.003, 0.003, 0.2, 7, 20, -1] { m.observeUpstreamLatency(seconds: seconds) }
        m.observeUpstreamLatency(seconds: .nan)
        let samples = try #require(PrometheusTextParser.parse(m.render()))
        let buckets = samples.filter { $0.name == "pushbridge_upstream_latency_seconds_bucket" }
        #expect(buckets.map { $0.labels["le"] ?? "" } == ["0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"])
        #expect(buckets.map(\.value) == ["3", "3", "5", "5", "5", "5", "5", "6", "6", "6", "6", "6", "7", "8"])
        #expect(samples.first { $0.name == "pushbridge_upstream_latency_seconds_count" }?.value == "8")
    }

    @Test func labelValuesAreEscaped() throws {
        let m = Metrics()
        let hostile = "a\"b\\c\nd} 1\nforged_total 99"
        m.recordRequest(dialect: hostile, route: "r", status: 200)
        let text = m.render()
        #expect(text.contains(#"pushbridge_requests_total{dialect="a\"b\\c\nd} 1\nforged_total 99",route="r",status="200"} 1"#))
        let samples = try #require(PrometheusTextParser.parse(text))
        #expect(!samples.contains { $0.name == "forged_total" })
        #expect(samples.first { $0.name == "pushbridge_requests_total" }?.labels["dialect"] == hostile)
    }

    @Test func cardinalityIsCappedAndOverflowCountedAsOther() throws {
        let m = Metrics(maxSeriesPerMetric: 3)
        let findings = (0..<10).map { Finding(field: "invented_\($0)", kind: .dropped, message: "unknown field") }
        m.recordFindings(findings, dialect: .onesignal)
        m.recordFindings([findings[0]], dialect: .onesignal)
        let series = try #require(PrometheusTextParser.parse(m.render())).filter { $0.name == "pushbridge_findings_total" }
        #expect(series.count == 4)
        #expect(series.first { $0.labels["field"] == "invented_0" }?.value == "2")
        #expect(series.first { $0.labels == ["dialect": "other", "field": "other", "kind": "other"] }?.value == "7")
    }

    @Test func longLabelValuesAreCut() throws {
        let m = Metrics(maxLabelValueBytes: 8)
        m.recordUpstreamAttempt(result: String(repeating: "é", count: 100))
        let series = try #require(PrometheusTextParser.parse(m.render())).first { $0.name == "pushbridge_upstream_attempts_total" }
        #expect(series?.labels["result"] == "éééé")
    }

    @Test func queueDepthSamplerIsReadAtRender() throws {
        let m = Metrics()
        m.setAuditQueueDepth(4)
        m.sampleAuditQueueDepth { 17 }
        #expect(m.render().contains("\npushbridge_audit_queue_depth 17\n"))
        m.sampleAuditQueueDepth(nil)
        #expect(m.render().contains("\npushbridge_audit_queue_depth 4\n"))
    }

    @Test(arguments: [
        ("a[12].b[0]", "a[].b[]"), ("plain", "plain"), ("a[x]", "a[x]"), ("a[", "a["), ("a[1", "a[1"), ("a[]", "a[]"), ("m[3][4]", "m[][]"),
        ("a[[1]", "a[[1]"), ("x[12y]", "x[12y]"), ("notifications[0].title[10]", "notifications[].title[]"), ("[7]", "[]"), ("é[2]", "é[]"),
    ])
    func arrayIndicesAreFolded(path: String, folded: String) {
        #expect(Metrics.foldIndices(path) == folded)
    }

    @Test func concurrentUpdatesAreAllCounted() async {
        let m = Metrics()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<1000 { m.recordRequest(dialect: .buzzkit, route: .send, status: 202) } }
            }
        }
        #expect(m.render().contains(#"pushbridge_requests_total{dialect="buzzkit",route="send",status="202"} 8000"#))
    }
}
