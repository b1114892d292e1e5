import Foundation
import PushBridgeServer

/// Plain-text rendering of audit rows for the terminal. Every stored value is printed
/// through ``TerminalText``: a one-line value with every control character visible, a body
/// with its line breaks kept and every other control visible.
enum AuditTable {
    /// `audit list`: one row per request.
    static func list(_ rows: [AuditSummary]) -> String {
        guard !rows.isEmpty else { return "no requests\n" }
        let header = ["REQUEST ID", "RECEIVED (UTC)", "ROUTE", "APP", "EVENT", "OUTCOME", "STATUS", "UPSTREAM MS", "FINDINGS"]
        let body = rows.map { row in
            [
                row.requestId, time(row.receivedAt), [row.dialect, row.route].compactMap { $0 }.joined(separator: ".").ifEmpty("-"),
                row.appName ?? row.sourceApp ?? "-", row.event ?? "-", row.outcome, row.responseStatus.map(String.init) ?? "-",
                row.upstreamLatencyMs.map { String(format: "%.1f", $0) } ?? "-", String(row.findingCount),
            ]
        }
        return columns([header] + body)
    }

    /// `audit show`: the row's fields, its findings, its attempts and its (redacted) bodies.
    static func show(_ record: AuditRecord) -> String {
        let entry = record.entry
        var lines: [(String, String)] = [
            ("request id", entry.requestId), ("received", time(entry.receivedAt)), ("finished", record.finishedAt.map(time) ?? "-"),
            ("path", entry.path ?? "-"), ("dialect", entry.dialect?.rawValue ?? "-"), ("route", entry.route?.rawValue ?? "-"),
            ("app", entry.appName ?? "-"), ("source app", entry.sourceApp ?? "-"), ("target app", entry.targetApp ?? "-"),
            ("activity", [entry.activityType, entry.activityId].compactMap { $0 }.joined(separator: " ").ifEmpty("-")),
            ("event", entry.event ?? "-"), ("key", entry.keyFingerprint ?? "-"), ("outcome", record.outcome),
            ("response status", record.responseStatus.map(String.init) ?? "-"),
            ("upstream status", record.upstreamStatus.map(String.init) ?? "-"),
            ("upstream latency", record.upstreamLatencyMs.map { String(format: "%.1f ms", $0) } ?? "-"),
        ]
        if let error = record.errorMessage { lines.append(("error", error)) }
        var text = lines.map { "\($0.0.padding(toLength: 17, withPad: " ", startingAt: 0))\(TerminalText.escape($0.1))\n" }.joined()
        text += section("findings (\(entry.findings.count))", entry.findings.isEmpty ? nil : columns(
            [["SEVERITY", "KIND", "FIELD", "MESSAGE"]] + entry.findings.map { [$0.severity.rawValue, $0.kind.rawValue, $0.field, $0.message] }))
        text += section("attempts", record.attempts)
        text += section("inbound body (redacted)", entry.inboundBody)
        text += section("translated (redacted)", entry.translated)
        text += section("upstream body", record.upstreamBody)
        text += section("response body", record.responseBody)
        return text
    }

    private static func section(_ title: String, _ content: String?) -> String {
        guard let stored = content, !stored.isEmpty else { return "" }
        let content = TerminalText.escape(stored, keepingNewlines: true)
        return "\n\(title):\n\(content)\(content.hasSuffix("\n") ? "" : "\n")"
    }

    /// Left-aligned columns separated by two spaces; every cell through ``TerminalText``.
    static func columns(_ cells: [[String]]) -> String {
        let rows = cells.map { $0.map { TerminalText.escape($0) } }
        let widths = rows.reduce(into: [Int]()) { widths, row in
            for (index, cell) in row.enumerated() {
                if index == widths.count { widths.append(0) }
                widths[index] = max(widths[index], cell.count)
            }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ") + "\n"
        }.joined()
    }

    static func time(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}

extension String {
    fileprivate func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}
