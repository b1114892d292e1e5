// report-bench: builds an audit of N translations (default 1,000,000) with realistic findings,
// retries, rate limits and 10% shadow comparisons, then times the report in text and json.
// usage: report-bench [ROWS] [AUDIT_FILE]   (the file is kept when given, else a temp file)
// Building uses raw SQLite in one transaction (the bench measures the report, not the writer).
import Foundation
import PushBridgeCore
import PushBridgeServer

let arguments = CommandLine.arguments
let rows = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
let keep = arguments.count > 2 ? arguments[2] : nil
let path = keep ?? FileManager.default.temporaryDirectory.appendingPathComponent("report-bench-\(UUID().uuidString).sqlite").path
defer { if keep == nil { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } } }

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
let clock = ContinuousClock()

if !FileManager.default.fileExists(atPath: path) {
    let built = try clock.measure { try ReportBenchAudit.build(path: path, rows: rows) }
    print("built \(rows) translations in \(String(format: "%.1f", seconds(built))) s: \(path)")
}
let reader = try AuditReader(path: path)
for format in [ReportFormat.text, .json, .html] {
    var bytes = 0
    let elapsed = try clock.measure { bytes = ReportRenderer.render(try reader.report(), as: format).utf8.count }
    print("report \(format.rawValue): \(String(format: "%.3f", seconds(elapsed))) s (target < 2 s), \(bytes) bytes")
}
let filtered = try clock.measure { _ = try reader.report(ReportFilter(app: "app-03", dialect: "onesignal")) }
print("report json --app app-03 --dialect onesignal: \(String(format: "%.3f", seconds(filtered))) s")
