import PushBridgeCore

/// A completion as the values of the `requests` columns it fills, each by name, so that no
/// statement picks them out of a list by position.
struct AuditCompletionColumns {
    var finishedAt: SQLiteValue
    var upstreamStatus: SQLiteValue
    var upstreamBody: SQLiteValue
    var upstreamLatencyMs: SQLiteValue
    var attempts: SQLiteValue
    var responseStatus: SQLiteValue
    var responseBody: SQLiteValue
    var outcome: SQLiteValue
    var errorMessage: SQLiteValue

    /// The columns of `completion` (all null but `outcome` when there is none yet), bodies cut
    /// to `bodyLimit` bytes.
    init(_ completion: AuditCompletion?, outcome: AuditOutcome, bodyLimit: Int) {
        self.outcome = .text(outcome.rawValue)
        guard let completion else {
            (finishedAt, upstreamStatus, upstreamBody, upstreamLatencyMs, attempts, responseStatus, responseBody, errorMessage) =
                (.null, .null, .null, .null, .null, .null, .null, .null)
            return
        }
        func text(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
        func integer(_ value: Int?) -> SQLiteValue { value.map { .integer(Int64($0)) } ?? .null }
        finishedAt = .integer(completion.finishedAt)
        upstreamStatus = integer(completion.upstreamStatus)
        upstreamBody = text(AuditRowEncoding.truncate(completion.upstreamBody, to: bodyLimit))
        upstreamLatencyMs = completion.upstreamLatencyMs.map(SQLiteValue.real) ?? .null
        attempts = completion.attempts.isEmpty ? .null : .text(Self.attemptsText(completion.attempts))
        responseStatus = integer(completion.responseStatus)
        responseBody = text(AuditRowEncoding.truncate(completion.responseBody, to: bodyLimit))
        errorMessage = text(completion.errorMessage)
    }

    /// The `attempts` column's text: the JSON array of each attempt's ``UpstreamAttempt/json``,
    /// as `JSONWriter` writes an array, each written straight into one buffer (no array of
    /// values made first), the thread's kept one (``ThreadScratchBytes``: no array of its own
    /// per completion).
    static func attemptsText(_ attempts: [UpstreamAttempt]) -> String {
        ThreadScratchBytes.with { bytes in
            bytes.reserveCapacity(96 * attempts.count + 2)
            bytes.append(UInt8(ascii: "["))
            for (index, attempt) in attempts.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONWriter.write(attempt.json, into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The value of one of the completion's columns (``AuditRequestColumn/completion``).
    subscript(column: AuditRequestColumn) -> SQLiteValue {
        switch column {
        case .finishedAt: finishedAt
        case .upstreamStatus: upstreamStatus
        case .upstreamBody: upstreamBody
        case .upstreamLatencyMs: upstreamLatencyMs
        case .attempts: attempts
        case .responseStatus: responseStatus
        case .responseBody: responseBody
        case .outcome: outcome
        case .errorMessage: errorMessage
        default: .null
        }
    }

    /// Every column with its name, in the order of ``AuditRequestColumn/completion``.
    var all: [(column: String, value: SQLiteValue)] {
        AuditRequestColumn.completion.map { ($0.name, self[$0]) }
    }

    /// The values of ``all`` in its order, then `requestId`: a `finish`'s values, made in one
    /// array of its final size.
    func values(thenRequestId requestId: String) -> [SQLiteValue] {
        var values: [SQLiteValue] = []
        values.reserveCapacity(AuditRequestColumn.completion.count + 1)
        for column in AuditRequestColumn.completion { values.append(self[column]) }
        values.append(.text(requestId))
        return values
    }

    /// What a completion written after the caller was answered changes: everything but the
    /// caller's status and body, which stay as answered.
    var afterAnswer: [(column: String, value: SQLiteValue)] {
        all.filter { $0.column != AuditRequestColumn.responseStatus.name && $0.column != AuditRequestColumn.responseBody.name }
    }
}
