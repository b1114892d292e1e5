// report-bench: builds an audit of N translations (default 1,000,000) with realistic findings,
// retries, rate limits and 10% shadow comparisons, then times the report in text, json and
// html, a filtered report and readiness, and checks that their totals are the rows it wrote.
// usage: report-bench [ROWS] [AUDIT_FILE]   (the file is kept when given, else a temp file;
// a file that exists is reused, without the check)
// The audit is written through the proxy's own writer (`SyntheticAudit`), so it follows the
// schema; `ReportBenchTests` runs the same code (`ReportBench.run`) on 2,000 rows in `make test`.
import Foundation
import PushBridgeServer

let arguments = CommandLine.arguments
guard arguments.count <= 3, let rows = arguments.count > 1 ? Int(arguments[1]) : 1_000_000, rows >= 1 else {
    FileHandle.standardError.write(Data("usage: report-bench [ROWS] [AUDIT_FILE]   (ROWS: a whole number of at least 1, default 1000000)\n".utf8))
    exit(2)
}
let keep = arguments.count > 2 ? arguments[2] : nil
let path = keep ?? FileManager.default.temporaryDirectory.appendingPathComponent("report-bench-\(UUID().uuidString).sqlite").path
/// Removes the audit unless it was asked to be kept.
func removeTemporaryAudit() {
    if keep == nil { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
}

let result: ReportBench.Result
do {
    result = try await ReportBench.run(path: path, rows: rows)
} catch {
    removeTemporaryAudit()
    FileHandle.standardError.write(Data("report-bench: \(error)\n".utf8))
    exit(1)
}
removeTemporaryAudit()
for line in result.lines { print(line) }
if !result.mismatches.isEmpty {
    FileHandle.standardError.write(Data(result.mismatches.map { "report-bench: mismatch: \($0)\n" }.joined().utf8))
    exit(1)
}
