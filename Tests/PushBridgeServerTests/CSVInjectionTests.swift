import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 20, item 8: what a caller sends never starts a spreadsheet formula in any CSV
/// PushBridge writes. The payloads of the issue go through the real pipeline (an in-process
/// proxy): a request line `=HYPERLINK("http://evil/x") /x` (an unhandled route), and unknown
/// field names `+cmd|'/c calc'!A0` and `@SUM(1)` (dropped fields, readiness reasons); the
/// audit is then read back as the report's CSV, the readiness CSV, both admin endpoints'
/// `format=csv` and the CLI's `--format csv`.
@Suite(.serialized) struct CSVInjectionTests {
    static let requestLine = #"=HYPERLINK("http://evil/x")"#
    static let command = "+cmd|'/c calc'!A0"
    static let sum = "@SUM(1)"

    /// A cell a spreadsheet would run: the OWASP list.
    static func isFormula(_ cell: String) -> Bool {
        guard let first = cell.unicodeScalars.first else { return false }
        return ["=", "+", "-", "@", "\t", "\r"].contains(first)
    }

    @Test func everyCSVNeutralisesTheIssuesPayloads() async throws {
        let run = try ReadinessRun(readiness: .init(minRequests: 1, minShadowed: 0))
        let line = await run.proxy.runtime.service.handle(HTTPRequest(method: Self.requestLine, target: "/x", headers: [("Host", "127.0.0.1")]))
        #expect(line.status == 404)
        let id = try await run.send("csv_1", extra: "\"\(Self.command.replacingOccurrences(of: "\"", with: "\\\""))\":1,\"\(Self.sum)\":2,")
        #expect(!id.isEmpty)

        let settings = ReadinessSettings(try run.configuration)
        let reader = try AuditReader(path: run.proxy.auditPath)
        let admin = AdminService(token: Secret("csv-admin-token"), reader: reader, readiness: settings)
        func served(_ target: String) -> String {
            let response = admin.handle(HTTPRequest(method: "GET", target: target, headers: [("Authorization", "Bearer csv-admin-token")]))
            #expect(response.status == 200, "\(target)")
            return String(decoding: response.body, as: UTF8.self)
        }
        let config = try run.configFile()
        let cliReport = try await CLIRunner.runAsync(["report", "--config", config, "--format", "csv"])
        let cliReadiness = try await CLIRunner.runAsync(["readiness", "--config", config, "--app", "os", "--format", "csv"])
        // The dropped fields are warnings on the only request: os is not ready (exit 1), and says so in CSV.
        #expect(cliReport.status == 0 && cliReadiness.status == 1, "\(cliReport.stderr)\(cliReadiness.stderr)")
        let documents: [(String, String)] = [
            ("report", ReportRenderer.render(try reader.report(readiness: settings), as: .csv)),
            ("readiness", ReadinessRendering.render(try reader.readiness(ReportFilter(app: "os"), settings: settings), as: .csv)),
            ("admin report", served("/admin/report?format=csv")),
            ("admin readiness", served("/admin/readiness?format=csv&app=os")),
            ("pushbridge report", cliReport.stdout),
            ("pushbridge readiness", cliReadiness.stdout),
        ]
        for (name, document) in documents {
            let rows = parseCSV(document)
            #expect(rows.count > 2 && rows.allSatisfy { $0.count == ReportCSV.columns.count }, "\(name): \(document)")
            let formulas = rows.flatMap { $0 }.filter(Self.isFormula)
            #expect(formulas.isEmpty, "\(name) has cells a spreadsheet runs: \(formulas)")
        }
        for (name, document) in documents where name.hasSuffix("report") {
            let rows = parseCSV(document)
            #expect(rows.contains { $0[0] == "unhandled_routes" && $0[2] == "'\(Self.requestLine) /x" }, "\(name): \(document)")
            let dropped = Set(rows.filter { $0[0] == "dropped" }.map { $0[3] })
            #expect(dropped.isSuperset(of: ["'\(Self.command)", "'\(Self.sum)"]), "\(name): \(dropped)")
        }
        for (name, document) in documents {
            let reasons = parseCSV(document).filter { $0[0] == "readiness" && $0[5] == "os" }.map { $0[12] }
            #expect(reasons.count == 1 && reasons[0].hasPrefix("'"), "\(name): \(reasons)")
            #expect(reasons.first?.contains("\(Self.command) dropped on 1 of 1 request") == true && reasons.first?.contains("\(Self.sum) dropped") == true,
                    "\(name): \(reasons)")
        }
        await run.stop()
    }

    @Test func theCellEncoderQuotesNeutralisesAndShowsControls() {
        let cases: [(String, String)] = [
            ("plain", "plain"), ("", ""), ("12", "12"), ("a=b", "a=b"),
            ("=1+1", "'=1+1"), ("+1", "'+1"), ("-1", "'-1"), ("@A1", "'@A1"), ("\u{FF1D}1", "'\u{FF1D}1"),
            ("\t=1", "\\u{9}=1"), ("\r=1", "\\u{D}=1"), ("a\nb", "a\\u{A}b"),
            ("=HYPERLINK(\"http://evil/x\")", "\"'=HYPERLINK(\"\"http://evil/x\"\")\""),
            ("a,b", "\"a,b\""), ("\u{1B}]0;x\u{7}", "\\u{1B}]0;x\\u{7}"),
        ]
        for (field, cell) in cases { #expect(CSVCell.encode(field) == cell, "\(field.debugDescription)") }
        #expect(CSVCell.document([["=a", "b"], ["c", "@d"]]) == "'=a,b\nc,'@d\n")
    }
}
