import Foundation

/// What `report-bench` does, as a library function so that a test runs the same code on a
/// small audit (`ReportBenchTests`): builds a ``SyntheticAudit`` (unless the file is there
/// already), times `report` in each format, a filtered report and `readiness` over it, and
/// checks that their totals are the rows it wrote.
public enum ReportBench {
    /// One run: the lines the bench prints and what its check found.
    public struct Result: Sendable {
        /// What was written; nil when an existing audit was reused (nothing to check against).
        public var written: SyntheticAudit.Totals?
        /// The unfiltered report.
        public var report: Report
        /// The unfiltered readiness verdicts.
        public var readiness: Readiness
        /// The timings and totals, one line each, as the bench prints them.
        public var lines: [String]
        /// Every total `report` or `readiness` got different from what was written, one line
        /// each; empty when all match.
        public var mismatches: [String]
    }

    /// Builds the audit at `path` with `rows` requests when no file is there, then times the
    /// reports over it.
    public static func run(path: String, rows: Int) async throws -> Result {
        let clock = ContinuousClock()
        var lines: [String] = []
        var written: SyntheticAudit.Totals?
        if !FileManager.default.fileExists(atPath: path) {
            let started = clock.now
            let totals = try await SyntheticAudit.build(path: path, rows: rows)
            written = totals
            lines.append("built \(totals.requests) translations (\(totals.findings) findings, \(totals.comparisons) shadow comparisons) "
                + "through the audit writer in \(seconds(clock.now - started, digits: 1)) s: \(path)")
        }
        let reader = try AuditReader(path: path)
        var reports: [Report] = []
        var textTime = Duration.zero
        for format in [ReportFormat.text, .json, .html] {
            let ((made, bytes), elapsed) = try timed(clock) { () throws(AuditError) in
                let made = try reader.report()
                return (made, ReportRenderer.render(made, as: format).utf8.count)
            }
            reports.append(made)
            if format == .text { textTime = elapsed }
            lines.append("report \(format.rawValue): \(seconds(elapsed)) s (target < 2 s), \(bytes) bytes")
        }
        let filtered = try clock.measure { _ = try reader.report(ReportFilter(app: "app-03", dialect: "onesignal")) }
        lines.append("report json --app app-03 --dialect onesignal: \(seconds(filtered)) s")
        let (readiness, judged) = try timed(clock) { () throws(AuditError) in try reader.readiness() }
        lines.append("readiness: \(seconds(judged)) s (target < 2 s)")
        let report = reports[0]
        // The two rows `make bench` compares with issue 30's targets (≤ 2 s each).
        lines.append("report over \(grouped(report.totalRequests)) rows, text (s): \(seconds(textTime))")
        lines.append("readiness over \(grouped(report.totalRequests)) rows (s): \(seconds(judged))")
        let routes = readiness.apps.flatMap(\.routes)
        lines.append("report total: \(report.totalRequests) requests, \(report.shadow.comparisons) shadow comparisons")
        lines.append("readiness total: \(routes.reduce(0) { $0 + $1.requests }) requests, \(routes.reduce(0) { $0 + $1.shadowed }) shadow comparisons, "
            + "\(readiness.refusedBeforeAdmission) refused before admission")
        let mismatches = written.map { $0.mismatches(report: report, readiness: readiness) } ?? []
        return Result(written: written, report: report, readiness: readiness, lines: lines, mismatches: mismatches)
    }

    /// `n` with a comma every three digits (`1,000,000`).
    static func grouped(_ n: Int) -> String {
        var digits = Array(String(n)), out: [Character] = []
        while digits.count > 3 { out = [","] + digits.suffix(3) + out; digits.removeLast(3) }
        return String(digits + out)
    }

    /// `body`'s value and how long it took.
    static func timed<T>(_ clock: ContinuousClock, _ body: () throws(AuditError) -> T) throws(AuditError) -> (T, Duration) {
        let started = clock.now
        let value = try body()
        return (value, clock.now - started)
    }

    /// `d` in seconds with `digits` decimals.
    static func seconds(_ d: Duration, digits: Int = 3) -> String {
        String(format: "%.\(digits)f", Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }
}

extension SyntheticAudit.Totals {
    /// Every figure of `report` and `readiness` that differs from what was written, as
    /// `what: found N, wrote M`.
    func mismatches(report: Report, readiness: Readiness) -> [String] {
        var found: [String] = []
        func check(_ what: String, _ value: Int, _ expected: Int) {
            if value != expected { found.append("\(what): found \(value), wrote \(expected)") }
        }
        check("report total requests", report.totalRequests, requests)
        var reportRoutes: [String: Int] = [:]
        for route in report.routes { reportRoutes["\(route.dialect)/\(route.route)", default: 0] += route.requests }
        for key in Set(byRoute.keys).union(reportRoutes.keys).sorted() { check("report requests on \(key)", reportRoutes[key] ?? 0, byRoute[key] ?? 0) }
        check("report shadow comparisons", report.shadow.comparisons, comparisons)
        let routes = readiness.apps.flatMap(\.routes)
        check("readiness requests", routes.reduce(0) { $0 + $1.requests }, requests)
        check("readiness shadow comparisons", routes.reduce(0) { $0 + $1.shadowed }, comparisons)
        check("readiness requests refused before admission", readiness.refusedBeforeAdmission, 0)
        return found
    }
}
