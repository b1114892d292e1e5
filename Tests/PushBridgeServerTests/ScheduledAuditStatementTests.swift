import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The named statements a scheduled start's life writes into the audit: each column gets its
/// own value by name, and a row completed meanwhile is never overwritten.
struct ScheduledAuditStatementTests {
    /// A completion whose every column holds a value no other column holds.
    private let later = AuditCompletion(
        finishedAt: 1_700_000_099_000, outcome: .sent, upstreamStatus: 202, upstreamBody: #"{"notification_id":"n-later"}"#, upstreamLatencyMs: 77.25,
        attempts: [UpstreamAttempt(startedAt: 1_700_000_098_000, status: 202, latencyMs: 77.25)], responseStatus: 599, responseBody: "never written", errorMessage: "the error")

    private func scheduledRow(_ store: AuditStore, _ id: String) async throws {
        try await store.record(sampleEntry(id), AuditCompletion(finishedAt: 1_700_000_000_100, outcome: .scheduled, responseStatus: 200, responseBody: #"{"id":"sch_1"}"#))
    }

    @Test func aLaterCompletionWritesEachColumnByNameAndKeepsTheAnswer() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await scheduledRow(store, "S1")
            try await store.run(.completeScheduled("S1", later, onlyWhileScheduled: false, bodyLimit: store.configuration.bodyLimit))
            let row = try #require(try store.reader.show(requestId: "S1"))
            #expect(row.outcome == "sent" && row.finishedAt == 1_700_000_099_000 && row.upstreamStatus == 202)
            #expect(row.upstreamBody == #"{"notification_id":"n-later"}"# && row.upstreamLatencyMs == 77.25 && row.errorMessage == "the error")
            #expect(row.attempts?.contains("1700000098000") == true)
            // The caller's answer stays as it was given.
            #expect(row.responseStatus == 200 && row.responseBody == #"{"id":"sch_1"}"#)
        }
    }

    @Test func reconciliationNeverOverwritesARowCompletedMeanwhile() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await scheduledRow(store, "S2")
            try await store.run(.completeScheduled("S2", later, onlyWhileScheduled: false, bodyLimit: 1000))
            var other = later
            other.outcome = .failed
            other.errorMessage = "stale"
            await #expect(throws: AuditError.self) {
                try await store.run(.completeScheduled("S2", other, onlyWhileScheduled: true, bodyLimit: 1000))
            }
            let row = try #require(try store.reader.show(requestId: "S2"))
            #expect(row.outcome == "sent" && row.errorMessage == "the error")
        }
    }

    @Test func theMirrorRecordsEachStateWithItsOwnTime() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await scheduledRow(store, "S3")
            try await store.run(.mirrorScheduled(requestId: "S3", ordinal: 0, sendAt: 5_000, targetApp: "op-app", redactedRequest: "{}", createdAt: 1_000, instance: "test"))
            try await store.run(.mirrorState(requestId: "S3", ordinal: 0, state: .sending, at: 6_000))
            try await store.run(.mirrorState(requestId: "S3", ordinal: 0, state: .sent, at: 7_000, status: 201,
                                             attempts: [UpstreamAttempt(startedAt: 6_500, status: 201, latencyMs: 3)]))
            let db = try SQLiteDatabase(path: path)
            let row = try #require(try db.rows("SELECT state, send_at, claimed_at, sent_at, upstream_status, error_message FROM scheduled_sends WHERE request_id = 'S3'").first)
            #expect(row == [.text("sent"), .integer(5_000), .integer(6_000), .integer(7_000), .integer(201), .null])
        }
    }

    @Test func aClaimPassMarksEveryClaimedMirrorRowSendingInOneCommit() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await scheduledRow(store, "S4")
            for ordinal in 0..<4 {
                try await store.run(.mirrorScheduled(requestId: "S4", ordinal: ordinal, sendAt: 5_000, targetApp: "op-app", redactedRequest: "{}", createdAt: 1_000, instance: "test"))
            }
            let before = store.statistics.transactions
            try await store.run(.mirrorClaimed([("S4", 0), ("S4", 2), ("S4", 3)], at: 6_000))
            #expect(store.statistics.transactions - before == 1)
            let rows = try SQLiteDatabase(path: path).rows("SELECT ordinal, state, claimed_at FROM scheduled_sends WHERE request_id = 'S4' ORDER BY ordinal")
            #expect(rows == [[.integer(0), .text("sending"), .integer(6_000)], [.integer(1), .text("pending"), .null],
                             [.integer(2), .text("sending"), .integer(6_000)], [.integer(3), .text("sending"), .integer(6_000)]])
        }
    }
}
