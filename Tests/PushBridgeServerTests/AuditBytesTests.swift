import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// What the SQLite audit writes to disk per request (issue 30: "KiB written per request"): a
/// WAL commit writes every page it dirtied whole, so the page size sets what each commit's
/// right edges cost (docs/benchmarks.md, "Where the audit's bytes go").
@Suite(.serialized) struct AuditBytesTests {
    /// A request shaped as `audit-bench` writes it: a ~1.6 KB intent (inbound body and
    /// translation of ~730 bytes each), three findings, a ~550-byte outcome.
    static func benchShaped(_ index: Int) -> (AuditEntry, AuditCompletion) {
        let padding = String(repeating: "x", count: 700)
        let id = String(format: "req_%012x%08x", 1_700_000_000_000 + index, index)
        let entry = AuditEntry(
            requestId: id, receivedAt: 1_700_000_000_000 + Int64(index), path: "/api/v1/apps/app-1/activities/activity/Delivery",
            dialect: .onesignal, route: .start, sourceApp: "app-1", targetApp: "op-app", activityType: "Delivery", activityId: "activity",
            event: "start", keyFingerprint: "sha256:0123456789ab", inboundBody: #"{"event":"start","padding":"\#(padding)"}"#,
            translated: #"[{"method":"POST","padding":"\#(padding)"}]"#,
            findings: [
                Finding(field: "dismissal_date", kind: .dropped, message: "OpenPush has no dismissal date on start; dropped"),
                Finding(field: "include_player_ids", kind: .renamed, message: "sent as include_subscription_ids"),
                Finding(field: "headings", kind: .synthesized, message: "made from the activity name"),
            ])
        let body = #"{"id":"n1","padding":"\#(padding.prefix(200))"}"#
        let completion = AuditCompletion(
            finishedAt: entry.receivedAt + 5, outcome: .forwarded, upstreamStatus: 201, upstreamBody: body, upstreamLatencyMs: 3.2,
            attempts: [UpstreamAttempt(startedAt: entry.receivedAt + 1, status: 201, latencyMs: 3.2)], responseStatus: 200, responseBody: body)
        return (entry, completion)
    }

    /// The WAL bytes `requests` begin+finish pairs write, one caller (each operation its own
    /// commit, so the figure does not depend on timing), checkpoints off; and the file's page size.
    static func walBytes(requests: Int, pageSize: Int?) async throws -> (bytes: Int, pageSize: Int) {
        try await withTemporaryAudit { path in
            var configuration = AuditStoreConfiguration()
            configuration.walAutocheckpointPages = 0
            if let pageSize { configuration.pageSize = pageSize }
            let store = try AuditStore(path: path, configuration: configuration)
            // The migrations' frames are not the requests'.
            try await store.begin(benchShaped(0).0)
            let before = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
            for index in 1...requests {
                let (entry, completion) = benchShaped(index)
                try await store.begin(entry)
                try await store.finish(entry.requestId, completion)
            }
            let after = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
            let size = try store.reader.query("PRAGMA page_size").first?.first?.integerValue ?? 0
            #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'forwarded'") == [[.integer(Int64(requests))]])
            await store.close()
            return (after - before, Int(size))
        }
    }

    /// Issue 30 (bytes written per request): a new audit is made with 2 KiB pages, and the same
    /// requests write at most three quarters of the WAL bytes they write at the 4 KiB pages
    /// audits were made with before (measured: about half, one request per commit).
    @Test func aNewAuditsPagesAreTwoKiBAndItsCommitsWriteLess() async throws {
        let requests = 60
        let now = try await Self.walBytes(requests: requests, pageSize: nil)
        let before = try await Self.walBytes(requests: requests, pageSize: 4_096)
        #expect(now.pageSize == 2_048)
        #expect(before.pageSize == 4_096)
        #expect(now.bytes > 0)
        #expect(Double(now.bytes) <= 0.75 * Double(before.bytes), "2 KiB pages: \(now.bytes / requests) bytes a request; 4 KiB: \(before.bytes / requests)")
    }

    /// An audit made before keeps its page size when a store opens it (the page size only
    /// applies to a new file: changing it would take a `VACUUM` of the whole audit).
    @Test func anExistingAuditKeepsItsPageSize() async throws {
        try await withTemporaryAudit { path in
            var old = AuditStoreConfiguration()
            old.pageSize = 4_096
            let first = try AuditStore(path: path, configuration: old)
            try await first.begin(sampleEntry("OLD"))
            await first.close()
            let reopened = try AuditStore(path: path)
            try await reopened.finish("OLD", sampleCompletion())
            #expect(try reopened.reader.query("PRAGMA page_size") == [[.integer(4_096)]])
            #expect(try reopened.reader.query("SELECT outcome FROM requests WHERE request_id = 'OLD'") == [[.text("forwarded")]])
            await reopened.close()
        }
    }
}
