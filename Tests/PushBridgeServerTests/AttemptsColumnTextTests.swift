import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// The audit's `attempts` column, now written attempt by attempt into one buffer
/// (``AuditCompletionColumns/attemptsText(_:)``), holds the same bytes as the JSON array of the
/// attempts' ``UpstreamAttempt/json`` that it held before, and reads back as the same attempts.
struct AttemptsColumnTextTests {
    /// Attempts with every optional part present or absent: a status, a transport error, a
    /// provider and whether it answered, text that JSON escapes.
    static var attempts: [UpstreamAttempt] {
        var answered = UpstreamAttempt(startedAt: 1_765_000_000_123, status: 201, latencyMs: 12.5, body: "{\"id\":\"x\"}")
        answered.provider = "openpush"
        answered.answered = true
        var failed = UpstreamAttempt(startedAt: 1_765_000_000_200, error: "timed_out (curl 28) \"quoted\"\n", errorDetail: "detail", latencyMs: 30_000)
        failed.provider = "legacy:onesignal"
        failed.answered = false
        let old = UpstreamAttempt(startedAt: 7, status: 503, latencyMs: 0.001)
        return [answered, failed, old]
    }

    @Test(arguments: [0, 1, 2, 3])
    func theColumnIsTheJSONArrayOfTheAttemptsAsBefore(count: Int) {
        let attempts = Array(Self.attempts.prefix(count))
        #expect(AuditCompletionColumns.attemptsText(attempts) == JSONWriter.string(.array(attempts.map(\.json))))
    }

    /// Written through the thread's kept array (``ThreadScratchBytes``): texts one after
    /// another, a long one among them (past the capacity kept, let go after it), and one made
    /// inside another's use, are each the JSON array as before.
    @Test func textsOneAfterAnotherThroughTheThreadsArrayAreEachAsBefore() {
        var long = Self.attempts[0]
        long.body = String(repeating: "é\"x", count: 8_000)
        let sets: [[UpstreamAttempt]] = [Self.attempts, [long], Array(Self.attempts.prefix(1)), [long, long], [], Self.attempts.reversed()]
        for attempts in sets {
            #expect(AuditCompletionColumns.attemptsText(attempts) == JSONWriter.string(.array(attempts.map(\.json))))
            #expect(ThreadScratchBytes.currentCapacity <= ThreadScratchBytes.keptCapacity, "a long text's storage was kept")
        }
        let (outer, inner) = ThreadScratchBytes.with { bytes -> (String, String) in
            bytes.append(contentsOf: "outer".utf8)
            let inner = AuditCompletionColumns.attemptsText(Self.attempts)
            bytes.append(contentsOf: "!".utf8)
            return (String(decoding: bytes, as: UTF8.self), inner)
        }
        #expect(outer == "outer!")
        #expect(inner == JSONWriter.string(.array(Self.attempts.map(\.json))))
    }

    @Test func theColumnOfACompletionReadsBackAsItsAttempts() {
        let completion = AuditCompletion(finishedAt: 1, outcome: .forwarded, attempts: Self.attempts)
        let column = AuditCompletionColumns(completion, outcome: .forwarded, bodyLimit: 8192).attempts
        let read = UpstreamAttempt.parse(column.textValue)
        #expect(read.map(\.startedAt) == Self.attempts.map(\.startedAt))
        #expect(read.map(\.status) == [201, nil, 503] && read.map(\.error) == [nil, Self.attempts[1].error, nil])
        #expect(read.map(\.provider) == ["openpush", "legacy:onesignal", nil] && read.map(\.answered) == [true, false, nil])
    }
}
