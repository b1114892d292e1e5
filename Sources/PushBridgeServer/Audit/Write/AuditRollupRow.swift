import PushBridgeCore

/// One audit request as the per-minute rollups count it: the intent's dimensions (which
/// counter rows it belongs to) and its completion's figures (outcome, status, latency, the
/// attempts' retries and rate-limit waits). Made from a written row's values
/// (``init(row:)``, in ``AuditRequestColumn`` order), from a completion's values
/// (``completed(by:)``), or from a row read back (``AuditRollupRows``).
struct AuditRollupRow: Sendable {
    /// What the intent says: every dimension but the outcome and status.
    struct Intent: Sendable {
        var receivedAt: Int64
        var instance = "", sourceApp = "", appName = "", targetApp = "", dialect = "", route = ""
        /// Whether the row keeps a translation (told apart: a refusal before admission has none).
        var translated = false
        /// OpenPush sends: the elements of a translated array (Pushwoosh's notifications), else 1.
        var sends: Int64 = 1
    }

    var intent: Intent
    var outcome: String
    var upstreamStatus: Int64?
    var latencyMs: Double?
    /// The `attempts` column's JSON text.
    var attempts: String?
    /// The attempts' figures when the request path handed them over (``AuditRollupCounts``);
    /// nil: read from ``attempts``.
    var figures: AuditRetryFigures?
    /// The upstream's answer and the error message (readiness tells OpenPush's calls by them).
    var upstreamBody: String?, errorMessage: String?

    /// The figures the attempts give (``AuditRetryFigures``): the ones handed over, else read
    /// from the `attempts` text as the report's SQL read them.
    var retryFigures: AuditRetryFigures {
        if let figures { return figures }
        // One attempt (the writer's JSON has no `},{` between objects then) needs no parse.
        guard let attempts, attempts.hasPrefix("["), attempts.contains("},{"),
              let array = (try? JSONParser.parse(Array(attempts.utf8)))?.arrayValue, array.count > 1 else {
            return .none
        }
        var limited: Int64 = 0, wait = 0.0
        for index in 0..<(array.count - 1) {
            let attempt = array[index].objectValue
            guard attempt?["status"]?.numberValue?.doubleValue == 429 else { continue }
            limited += 1
            if let next = array[index + 1].objectValue?["at"]?.numberValue?.doubleValue, let at = attempt?["at"]?.numberValue?.doubleValue,
               let latency = attempt?["latency_ms"]?.numberValue?.doubleValue {
                wait += max(0, next - at - latency)
            }
        }
        return AuditRetryFigures(retried: 1, retries: Int64(array.count - 1), rateLimited: limited, waitMs: wait)
    }

    /// OpenPush sends of a `translated` column: a JSON array's element count, else 1.
    static func sends(translated: String?) -> Int64 {
        guard let translated, translated.hasPrefix("[") else { return 1 }
        return topLevelElements(translated) ?? (try? JSONParser.parse(Array(translated.utf8)))?.arrayValue.map { Int64($0.count) } ?? 1
    }

    /// The elements of a JSON array counted by one pass over its bytes (commas outside strings
    /// at depth 1), without building it; nil when the text does not end as an array does.
    static func topLevelElements(_ text: String) -> Int64? {
        var depth = 0, commas: Int64 = 0, inString = false, escaped = false, sawValue = false
        for byte in text.utf8 {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true; sawValue = sawValue || depth == 1
            case UInt8(ascii: "["), UInt8(ascii: "{"): if depth >= 1 { sawValue = true }; depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: ","): if depth == 1 { commas += 1 }
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
            default: if depth == 1 { sawValue = true }
            }
        }
        guard depth == 0, !inString else { return nil }
        return sawValue ? commas + 1 : 0
    }

    /// The row as ``AuditStatements/requestColumns`` lists its values (an intent, or a
    /// complete row written by `record`), with what the request path handed over (`counts`:
    /// then neither the translation nor the attempts are read).
    init(row: [SQLiteValue], counts: AuditRollupCounts? = nil) {
        func text(_ position: Int) -> String { row[position].textValue ?? "" }
        let translated = row[Position.translated].textValue
        intent = Intent(receivedAt: row[Position.receivedAt].integerValue ?? 0, instance: text(Position.instance), sourceApp: text(Position.sourceApp),
                        appName: text(Position.appName), targetApp: text(Position.targetApp), dialect: text(Position.dialect), route: text(Position.route),
                        translated: translated != nil, sends: counts?.sends ?? Self.sends(translated: translated))
        outcome = row[Position.outcome].textValue ?? AuditOutcome.pending.rawValue
        upstreamStatus = row[Position.upstreamStatus].integerValue
        latencyMs = Self.real(row[Position.upstreamLatencyMs])
        attempts = row[Position.attempts].textValue
        figures = counts?.retry
        (upstreamBody, errorMessage) = (row[Position.upstreamBody].textValue, row[Position.errorMessage].textValue)
    }

    init(intent: Intent, outcome: String, upstreamStatus: Int64? = nil, latencyMs: Double? = nil, attempts: String? = nil, figures: AuditRetryFigures? = nil,
         upstreamBody: String? = nil, errorMessage: String? = nil) {
        self.intent = intent
        self.outcome = outcome
        self.upstreamStatus = upstreamStatus
        self.latencyMs = latencyMs
        self.attempts = attempts
        self.figures = figures
        (self.upstreamBody, self.errorMessage) = (upstreamBody, errorMessage)
    }

    /// The same request once `values` (``AuditRequestColumn/completion`` order, as a finish
    /// carries them) completed it; `figures`, when the request path handed them over.
    func completed(by values: [SQLiteValue], figures: AuditRetryFigures? = nil) -> AuditRollupRow {
        AuditRollupRow(intent: intent, outcome: values[Position.completedOutcome].textValue ?? AuditOutcome.pending.rawValue,
                       upstreamStatus: values[Position.completedStatus].integerValue, latencyMs: Self.real(values[Position.completedLatencyMs]),
                       attempts: values[Position.completedAttempts].textValue, figures: figures,
                       upstreamBody: values[Position.completedBody].textValue, errorMessage: values[Position.completedError].textValue)
    }

    static func real(_ value: SQLiteValue) -> Double? {
        switch value {
        case .real(let real): real
        case .integer(let integer): Double(integer)
        default: nil
        }
    }

    /// Where the columns read are: in a row (``AuditRequestColumn`` order) and, `completed…`,
    /// in a completion's values (``AuditRequestColumn/completion`` order). Computed once.
    private enum Position {
        static let receivedAt = row(.receivedAt), instance = row(.instanceName), sourceApp = row(.sourceApp), appName = row(.appName)
        static let targetApp = row(.targetApp), dialect = row(.dialect), route = row(.route), translated = row(.translated)
        static let outcome = row(.outcome), upstreamStatus = row(.upstreamStatus), upstreamLatencyMs = row(.upstreamLatencyMs), attempts = row(.attempts)
        static let completedOutcome = completion(.outcome), completedStatus = completion(.upstreamStatus)
        static let completedLatencyMs = completion(.upstreamLatencyMs), completedAttempts = completion(.attempts)
        static let upstreamBody = row(.upstreamBody), errorMessage = row(.errorMessage)
        static let completedBody = completion(.upstreamBody), completedError = completion(.errorMessage)

        private static func row(_ column: AuditRequestColumn) -> Int { AuditRequestColumn.allCases.firstIndex(of: column) ?? 0 }
        private static func completion(_ column: AuditRequestColumn) -> Int { AuditRequestColumn.completion.firstIndex(of: column) ?? 0 }
    }
}
