import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The audit behind one interface: the same writes, reads, report and readiness on SQLite and
/// PostgreSQL.
@Suite(.serialized) struct AuditEngineTests {
    /// A varied day of traffic: forwarded with a 429 retried, rejected with findings, failed,
    /// two apps and routes, pending, and shadow comparisons.
    private func fill(_ store: AuditStore) async throws {
        let base: Int64 = 1_700_000_000_000
        for index in 0..<30 {
            let id = String(format: "R%04d", index)
            var entry = sampleEntry(id, receivedAt: base + Int64(index) * 60_000, findings: index % 4, app: index % 3 == 0 ? "app-2" : "app-1")
            entry.appName = index % 3 == 0 ? "rides" : "scores"
            switch index % 5 {
            case 0:
                let attempts = [UpstreamAttempt(startedAt: entry.receivedAt + 1, status: 429, latencyMs: 4.5),
                                UpstreamAttempt(startedAt: entry.receivedAt + 900, status: 201, latencyMs: 11.25)]
                try await store.begin(entry)
                try await store.finish(id, AuditCompletion(finishedAt: entry.receivedAt + 950, outcome: .forwarded, upstreamStatus: 201,
                                                           upstreamBody: "{}", upstreamLatencyMs: 11.25, attempts: attempts, responseStatus: 200, responseBody: "{}"))
            case 1:
                try await store.record(entry, AuditCompletion(finishedAt: entry.receivedAt + 3, outcome: .rejected, responseStatus: 400, responseBody: "{\"errors\":[]}"))
            case 2:
                try await store.begin(entry)
                try await store.finish(id, AuditCompletion(finishedAt: entry.receivedAt + 40, outcome: .failed, upstreamStatus: 500, upstreamLatencyMs: 30,
                                                           attempts: [UpstreamAttempt(startedAt: entry.receivedAt + 2, status: 500, latencyMs: 30)],
                                                           responseStatus: 502, errorMessage: "upstream 500"))
            case 3:
                try await store.begin(entry)
            default:
                try await store.begin(entry)
                try await store.finish(id, sampleCompletion(finishedAt: entry.receivedAt + 120))
                let comparison = ShadowComparison(requestId: id, comparedAt: entry.receivedAt + 130, dialect: .onesignal, route: .start, sourceApp: entry.sourceApp ?? "",
                                                  primary: .init(provider: "onesignal", status: 200, body: "{}", latencyMs: 20, error: nil),
                                                  shadow: .init(provider: "openpush", status: index % 2 == 0 ? 201 : 422, body: "{}", latencyMs: 14.5, error: nil))
                try await store.record(comparison)
            }
        }
    }

    @Test func theReportAndReadinessAreTheSameOnBothEngines() async throws {
        var reports: [AuditEngine: (Report, Readiness, [AuditSummary])] = [:]
        for engine in AuditEngine.allCases {
            try await withTemporaryAudit(engine) { path in
                let store = try AuditStore(path: path)
                try await fill(store)
                await store.close()
                let reader = try AuditReader(path: path)
                reports[engine] = (try reader.report(), try reader.readiness(), try reader.list(limit: 100, app: "rides"))
            }
        }
        let sqlite = try #require(reports[.sqlite]), postgres = try #require(reports[.postgresql])
        #expect(sqlite.0.totalRequests == 30)
        #expect(sqlite.0.shadow.comparisons == 6)
        #expect(sqlite.0.upstream.rateLimitedAttempts == 6)
        #expect(ReportJSON.render(postgres.0) == ReportJSON.render(sqlite.0))
        #expect(postgres.0 == sqlite.0)
        #expect(postgres.1 == sqlite.1)
        #expect(postgres.2 == sqlite.2)
        #expect(sqlite.2.count == 10)
    }

    @Test(arguments: AuditEngine.allCases) func aDuplicateRequestFailsAloneInItsBatch(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await store.begin(sampleEntry("DUP"))
            let results = await withTaskGroup(of: (String, Bool).self) { group in
                for index in 0..<40 {
                    let id = index == 20 ? "DUP" : "B\(index)"
                    group.addTask { (id, (try? await store.begin(sampleEntry(id))) != nil) }
                }
                return await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect(results["DUP"] == false)
            #expect(results.values.filter { $0 }.count == 39)
            #expect(try store.reader.query("SELECT count(*) FROM requests") == [[.integer(40)]])
            #expect(try store.reader.query("SELECT count(*) FROM findings") == [[.integer(120)]])
            await store.close()
        }
    }

    @Test(arguments: AuditEngine.allCases) func everyRowCarriesItsInstanceName(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            var configuration = AuditStoreConfiguration()
            configuration.instanceName = "edge-7"
            let store = try AuditStore(path: path, configuration: configuration)
            try await fill(store)
            for table in ["requests", "findings", "shadow_comparisons"] {
                let names = try store.reader.query("SELECT DISTINCT instance_name FROM \(table)")
                #expect(names == [[.text("edge-7")]], "\(table)")
            }
            await store.close()
        }
    }
}
