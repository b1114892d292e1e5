import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// `/healthz` and `/metrics` on the proxy reflect the traffic it served.
@Suite(.serialized)
struct ProxyOperationsTests {
    @Test func metricsCountRequestsFindingsUpstreamLatencyAndAuditWrites() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL)
        let body = Array(try Data(contentsOf: CLIRunner.repoRoot.appendingPathComponent("fixtures/onesignal-start-interruption-level-and-subtitle/body.json")))
        let reply = try await proxy.send(path: "/apps/app_3f9c2b/activities/activity/DeliveryAttributes", body: body)
        #expect(reply.status == 201)

        let health = try await proxy.get("/healthz")
        #expect(health.status == 200)
        #expect(try JSONParser.parse(health.body).objectValue?["status"] == .string("ok"))

        let metrics = try await proxy.get("/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain") == true)
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains(#"pushbridge_requests_total{dialect="onesignal",route="start",status="201"} 1"#))
        #expect(text.contains(#"pushbridge_findings_total{dialect="onesignal",field="ios_interruption_level",kind="dropped"} 1"#))
        #expect(text.contains(#"pushbridge_findings_total{dialect="onesignal",field="subtitle",kind="dropped"} 1"#))
        #expect(text.contains("pushbridge_upstream_latency_seconds_count 1"))
        let auditWrites = text.split(separator: "\n").first { $0.hasPrefix("pushbridge_audit_write_seconds_count ") }
        #expect((auditWrites?.split(separator: " ").last.flatMap { Int($0) } ?? 0) >= 1, "audit writes: \(auditWrites ?? "none")")
        #expect(text.contains("pushbridge_audit_queue_depth "))
        await proxy.stop()
    }
}
