import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// SQLite migration 16 (``AuditAnswerOnceSchema``): an answer the caller got exactly as
/// upstream sent it is stored once, and every reader reads it as before.
@Suite(.serialized) struct AuditAnswerOnceTests {
    /// How each request's outcome row holds its answer: `typeof` and length of `response_body`.
    static func storedAnswers(_ store: AuditStore) throws -> [String: [SQLiteValue]] {
        var answers: [String: [SQLiteValue]] = [:]
        for row in try store.reader.query("SELECT request_id, typeof(response_body), length(CAST(response_body AS BLOB)) FROM request_outcomes") {
            answers[row[0].textValue ?? ""] = Array(row.dropFirst())
        }
        return answers
    }

    /// Issue 30 (bytes written per request): a begun and finished request and a recorded one
    /// whose answer is upstream's body store it once (an empty blob in `response_body`, none of
    /// its bytes twice); an answer of its own (a rendered one) is stored as text; and `audit
    /// show` (the reader and the CLI's JSON) reads every answer exactly as it was given.
    @Test func anAnswerPassedOnAsItCameIsStoredOnceAndReadAsItWas() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            let (passed, passedCompletion) = AuditBytesTests.benchShaped(1)
            try await store.begin(passed)
            try await store.finish(passed.requestId, passedCompletion)
            let (recorded, recordedCompletion) = AuditBytesTests.benchShaped(2)
            try await store.record(recorded, recordedCompletion)
            let (rendered, passedOn) = AuditBytesTests.benchShaped(3)
            var renderedCompletion = passedOn
            renderedCompletion.responseBody = #"{"id":"n1","recipients":1}"#
            try await store.begin(rendered)
            try await store.finish(rendered.requestId, renderedCompletion)

            let answers = try Self.storedAnswers(store)
            #expect(answers[passed.requestId] == [.text("blob"), .integer(0)])
            #expect(answers[recorded.requestId] == [.text("blob"), .integer(0)])
            #expect(answers[rendered.requestId] == [.text("text"), .integer(Int64(renderedCompletion.responseBody?.utf8.count ?? 0))])
            for (entry, completion) in [(passed, passedCompletion), (recorded, recordedCompletion), (rendered, renderedCompletion)] {
                let record = try #require(try store.reader.show(requestId: entry.requestId))
                #expect(record.responseBody == completion.responseBody)
                #expect(record.upstreamBody == completion.upstreamBody)
            }
            await store.close()
            let show = try await CLIRunner.runAsync(["audit", "show", passed.requestId, "--db", path, "--format", "json"])
            #expect(show.status == 0, "\(show.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
            #expect(json["response_body"] as? String == passedCompletion.responseBody)
        }
    }

    /// A `scheduled` row keeps its answer as text: a later completion fills its upstream
    /// columns (``AuditStatement/completeScheduled(_:_:onlyWhileScheduled:bodyLimit:)``) and
    /// the caller's answer must not follow them.
    @Test func aScheduledRowsAnswerStaysWhenItsCompletionComes() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            let (entry, sent) = AuditBytesTests.benchShaped(1)
            var scheduled = sent
            scheduled.outcome = .scheduled
            try await store.record(entry, scheduled)
            #expect(try Self.storedAnswers(store)[entry.requestId]?.first == .text("text"))
            var completed = sent
            completed.upstreamBody = #"{"id":"sent-later"}"#
            try await store.run(.completeScheduled(entry.requestId, completed, onlyWhileScheduled: true, bodyLimit: 8_192))
            let record = try #require(try store.reader.show(requestId: entry.requestId))
            #expect(record.outcome == "forwarded")
            #expect(record.upstreamBody == #"{"id":"sent-later"}"#)
            #expect(record.responseBody == sent.responseBody)
            await store.close()
        }
    }

    /// The bytes it saves: the outcome rows of requests whose answer is upstream's hold the
    /// upstream body's bytes once, not twice (`request_outcomes`' payload, by `dbstat`).
    @Test func theOutcomeRowsHoldTheBodyOnce() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            for index in 1...20 {
                let (entry, completion) = AuditBytesTests.benchShaped(index)
                try await store.begin(entry)
                try await store.finish(entry.requestId, completion)
            }
            let body = Int64(AuditBytesTests.benchShaped(1).1.upstreamBody?.utf8.count ?? 0)
            let bodies = try store.reader.query("SELECT sum(length(CAST(upstream_body AS BLOB))), sum(length(CAST(response_body AS BLOB))) FROM request_outcomes")
            #expect(bodies == [[.integer(20 * body), .integer(0)]])
            await store.close()
        }
    }
}
