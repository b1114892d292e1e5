import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

struct AuditStoreTests {
    @Test(arguments: AuditEngine.allCases) func beginThenFinishRoundTripsEveryColumn(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            #expect(store.recoveredPendingCount == 0)
            let entry = sampleEntry("01TEST0000000000000000000A")
            try await store.begin(entry)
            let pending = try #require(try store.reader.show(requestId: entry.requestId))
            #expect(pending.outcome == "pending")
            #expect(pending.entry == entry)
            try await store.finish(entry.requestId, sampleCompletion())
            let record = try #require(try store.reader.show(requestId: entry.requestId))
            #expect(record.entry == entry)
            #expect(record.outcome == "forwarded")
            #expect(record.finishedAt == 1_700_000_000_120)
            #expect(record.upstreamStatus == 201)
            #expect(record.upstreamBody == #"{"id":"n1"}"#)
            #expect(record.upstreamLatencyMs == 12.5)
            #expect(record.attempts == #"[{"at":1700000000100,"status":201,"latency_ms":12.5}]"#)
            #expect(record.responseStatus == 200)
            #expect(record.responseBody == #"{"id":"n1"}"#)
            #expect(record.errorMessage == nil)
            let rows = try store.reader.query("SELECT finding_count, dialect, route FROM requests")
            #expect(rows == [[.integer(3), .text("onesignal"), .text("start")]])
            await store.close()
        }
    }

    @Test(arguments: AuditEngine.allCases) func finishOfAnUnknownRequestThrows(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            await #expect(throws: AuditError.self) { try await store.finish("nope", sampleCompletion()) }
            await store.close()
            await #expect(throws: AuditError.self) { try await store.begin(sampleEntry("late")) }
        }
    }

    @Test func findingsAreStoredAndReadByTheirRequest() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await store.record(sampleEntry("A", findings: 3), AuditCompletion(finishedAt: 1, outcome: .rejected, responseStatus: 400))
            let findings = try store.reader.query("SELECT request_id, ordinal, dialect, route, source_app, field, kind, severity FROM findings ORDER BY ordinal")
            #expect(findings.count == 3)
            #expect(findings[0] == [.text("A"), .integer(0), .text("onesignal"), .text("start"), .text("app-1"), .text("field0"), .text("dropped"), .text("warning")])
            let plan = try store.reader.query("EXPLAIN QUERY PLAN SELECT field, message FROM findings WHERE request_id = ? ORDER BY ordinal", [.text("A")])
            let detail = plan.compactMap { $0.last?.textValue }.joined(separator: " | ")
            // Inline in the intent (SQLite migration 18): the intent by its id, then its list.
            #expect(detail.contains("SEARCH l USING INDEX request_log_id (request_id=?)"), "\(detail)")
            await store.close()
        }
    }

    @Test(arguments: AuditEngine.allCases) func rowsLeftPendingAreMarkedUnknownOnReopen(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            do {
                let store = try AuditStore(path: path)
                try await store.begin(sampleEntry("P1"))
                try await store.begin(sampleEntry("P2"))
                try await store.begin(sampleEntry("P3"))
                try await store.finish("P3", sampleCompletion())
                // No finish for P1, P2: as if the process were killed here.
            }
            let reopened = try AuditStore(path: path)
            #expect(reopened.recoveredPendingCount == 2)
            let p1 = try #require(try reopened.reader.show(requestId: "P1"))
            #expect(p1.outcome == "unknown")
            #expect(p1.finishedAt != nil)
            #expect(try reopened.reader.show(requestId: "P3")?.outcome == "forwarded")
            await reopened.close()
        }
    }

    @Test(arguments: AuditEngine.allCases) func aThousandConcurrentBeginFinishPairsAllLand(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            var configuration = AuditStoreConfiguration()
            configuration.queueCapacity = 16
            let store = try AuditStore(path: path, configuration: configuration)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<1_000 {
                    group.addTask {
                        let id = String(format: "C%05d", index)
                        try await store.begin(sampleEntry(id))
                        try await store.finish(id, sampleCompletion())
                    }
                }
                try await group.waitForAll()
            }
            #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'forwarded'") == [[.integer(1_000)]])
            #expect(try store.reader.query("SELECT count(*) FROM findings") == [[.integer(3_000)]])
            let statistics = store.statistics
            #expect(statistics.operations == 2_000)
            #expect(statistics.transactions < 2_000)
            #expect(statistics.waitedForRoom > 0)
            #expect(store.queueDepth == 0)
            await store.close()
        }
    }

    @Test(arguments: AuditEngine.allCases) func pruneDeletesOldRowsAndTheirFindings(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            let day: Int64 = 86_400_000
            let now: Int64 = 1_800_000_000_000
            try await store.record(sampleEntry("OLD1", receivedAt: now - 40 * day), sampleCompletion())
            try await store.record(sampleEntry("OLD2", receivedAt: now - 31 * day), sampleCompletion())
            try await store.begin(sampleEntry("OLDPENDING", receivedAt: now - 31 * day))
            try await store.record(sampleEntry("NEW", receivedAt: now - 2 * day), sampleCompletion())
            #expect(try store.reader.prune(olderThanDays: 30, now: now) == 2)
            let ids = try store.reader.query("SELECT request_id FROM requests ORDER BY request_id").compactMap { $0.first?.textValue }
            #expect(ids == ["NEW", "OLDPENDING"])
            let findingIds = try store.reader.query("SELECT DISTINCT request_id FROM findings ORDER BY request_id").compactMap { $0.first?.textValue }
            #expect(findingIds == ["NEW", "OLDPENDING"])
            await store.close()
        }
    }

    @Test func integrityCheckIsOkAfterClose() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            for index in 0..<50 { try await store.record(sampleEntry("I\(index)"), sampleCompletion()) }
            await store.close()
            let database = try SQLiteDatabase(path: path)
            #expect(try database.rows("PRAGMA integrity_check") == [[.text("ok")]])
            #expect(try database.journalMode == "wal")
            #expect(try database.rows("SELECT count(*) FROM requests") == [[.integer(50)]])
            let tables = try database.rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").compactMap { $0.first?.textValue }
            #expect(tables.contains("shadow_comparisons") && tables.contains("scheduled_sends"))
        }
    }

    @Test func longBodiesAreTruncatedAtACharacterBoundary() {
        let body = String(repeating: "é", count: 10)
        let cut = AuditRowEncoding.truncate(body, to: 5)
        #expect(cut == "éé…[truncated: 20 bytes]")
        #expect(AuditRowEncoding.stripQuery("/v1/x?auth=SECRET") == "/v1/x")
    }
}
