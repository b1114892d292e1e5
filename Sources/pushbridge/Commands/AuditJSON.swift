import PushBridgeCore
import PushBridgeServer

/// `--format json` of `audit list` and `audit show`: the same fields as the tables, with times
/// as Unix milliseconds and absent values as `null`; control characters in strings escaped
/// (C0 by the JSON writer, DEL and C1 by ``TerminalText/json(_:)``).
enum AuditJSON {
    /// `{"requests": [...]}`, newest first.
    static func list(_ rows: [AuditSummary]) -> String {
        let requests: [JSONValue] = rows.map { row in
            .object([
                "request_id": .string(row.requestId), "received_at": .int(row.receivedAt), "dialect": text(row.dialect),
                "route": text(row.route), "app": text(row.appName), "source_app": text(row.sourceApp), "event": text(row.event),
                "outcome": .string(row.outcome), "response_status": number(row.responseStatus),
                "upstream_latency_ms": row.upstreamLatencyMs.map(JSONValue.double) ?? .null, "finding_count": .int(Int64(row.findingCount)),
            ])
        }
        return TerminalText.json(JSONWriter.pretty(.object(["requests": .array(requests)]))) + "\n"
    }

    /// One request: its row, its findings, its attempts and its (redacted) bodies.
    static func show(_ record: AuditRecord) -> String {
        let entry = record.entry
        let findings: [JSONValue] = entry.findings.map { finding in
            .object(["field": .string(finding.field), "kind": .string(finding.kind.rawValue), "severity": .string(finding.severity.rawValue),
                     "message": .string(finding.message)])
        }
        let attempts = record.attempts.flatMap { try? JSONParser.parse(Array($0.utf8)) } ?? .null
        let object: JSONObject = [
            "request_id": .string(entry.requestId), "received_at": .int(entry.receivedAt), "finished_at": record.finishedAt.map(JSONValue.int) ?? .null,
            "path": text(entry.path), "dialect": text(entry.dialect?.rawValue), "route": text(entry.route?.rawValue), "app": text(entry.appName),
            "source_app": text(entry.sourceApp), "target_app": text(entry.targetApp), "activity_type": text(entry.activityType),
            "activity_id": text(entry.activityId), "event": text(entry.event), "key": text(entry.keyFingerprint), "outcome": .string(record.outcome),
            "response_status": number(record.responseStatus), "upstream_status": number(record.upstreamStatus),
            "upstream_latency_ms": record.upstreamLatencyMs.map(JSONValue.double) ?? .null, "error": text(record.errorMessage),
            "findings": .array(findings), "attempts": attempts, "inbound_body": text(entry.inboundBody), "translated": text(entry.translated),
            "upstream_body": text(record.upstreamBody), "response_body": text(record.responseBody),
        ]
        return TerminalText.json(JSONWriter.pretty(.object(object))) + "\n"
    }

    private static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    private static func number(_ value: Int?) -> JSONValue { value.map { .int(Int64($0)) } ?? .null }
}
