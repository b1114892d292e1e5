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
    /// The upstream's answer and the error message (readiness tells OpenPush's calls by them).
    var upstreamBody: String?, errorMessage: String?

    /// The figures the attempts give: requests retried (0 or 1), retries, 429s followed by
    /// another attempt, and the wait after them (ms), as the report's SQL read them.
    var retryFigures: (retried: Int64, retries: Int64, rateLimited: Int64, waitMs: Double) {
        // One attempt (the writer's JSON has no `},{` between objects then) needs no parse.
        guard let attempts, attempts.hasPrefix("["), attempts.contains("},{"),
              let array = (try? JSONParser.parse(Array(attempts.utf8)))?.arrayValue, array.count > 1 else {
            return (0, 0, 0, 0)
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
        return (1, Int64(array.count - 1), limited, wait)
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
    /// complete row written by `record`).
    init(row: [SQLiteValue]) {
        func text(_ column: AuditRequestColumn) -> String? { row[Self.position[column]!].textValue }
        intent = Intent(receivedAt: row[Self.position[.receivedAt]!].integerValue ?? 0, instance: text(.instanceName) ?? "", sourceApp: text(.sourceApp) ?? "",
                        appName: text(.appName) ?? "", targetApp: text(.targetApp) ?? "", dialect: text(.dialect) ?? "", route: text(.route) ?? "",
                        translated: text(.translated) != nil, sends: Self.sends(translated: text(.translated)))
        outcome = text(.outcome) ?? AuditOutcome.pending.rawValue
        upstreamStatus = row[Self.position[.upstreamStatus]!].integerValue
        latencyMs = Self.real(row[Self.position[.upstreamLatencyMs]!])
        attempts = text(.attempts)
        (upstreamBody, errorMessage) = (text(.upstreamBody), text(.errorMessage))
    }

    init(intent: Intent, outcome: String, upstreamStatus: Int64? = nil, latencyMs: Double? = nil, attempts: String? = nil,
         upstreamBody: String? = nil, errorMessage: String? = nil) {
        self.intent = intent
        self.outcome = outcome
        self.upstreamStatus = upstreamStatus
        self.latencyMs = latencyMs
        self.attempts = attempts
        (self.upstreamBody, self.errorMessage) = (upstreamBody, errorMessage)
    }

    /// The same request once `values` (``AuditRequestColumn/completion`` order, as a finish
    /// carries them) completed it.
    func completed(by values: [SQLiteValue]) -> AuditRollupRow {
        func value(_ column: AuditRequestColumn) -> SQLiteValue { values[AuditRequestColumn.completion.firstIndex(of: column)!] }
        return AuditRollupRow(intent: intent, outcome: value(.outcome).textValue ?? AuditOutcome.pending.rawValue, upstreamStatus: value(.upstreamStatus).integerValue,
                              latencyMs: Self.real(value(.upstreamLatencyMs)), attempts: value(.attempts).textValue,
                              upstreamBody: value(.upstreamBody).textValue, errorMessage: value(.errorMessage).textValue)
    }

    static func real(_ value: SQLiteValue) -> Double? {
        switch value {
        case .real(let real): real
        case .integer(let integer): Double(integer)
        default: nil
        }
    }

    private static let position = Dictionary(uniqueKeysWithValues: AuditRequestColumn.allCases.enumerated().map { ($1, $0) })
}
