import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The audit behind one interface: the same writes, reads, report and readiness on SQLite and
/// PostgreSQL.
@Suite(.serialized) struct AuditEngineTests {
    @Test func theReportAndReadinessAreTheSameOnBothEngines() async throws {
        var reports: [AuditEngine: (Report, Readiness, [AuditSummary])] = [:]
        for engine in AuditEngine.allCases {
            try await withTemporaryAudit(engine) { path in
                let store = try AuditStore(path: path)
                try await fillVariedAudit(store)
                await store.close()
                let reader = try AuditReader(path: path)
                // The next steps print commands with `--db` naming each engine's own audit.
                var report = try reader.report()
                report.readiness = Self.sameAudit(report.readiness, path: reader.path)
                reports[engine] = (report, Self.sameAudit(try reader.readiness(), path: reader.path), try reader.list(limit: 100, app: "rides"))
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

    /// `r` with the audit's own path (the `--db` of the commands its next steps print) as `DB`.
    static func sameAudit(_ r: Readiness, path: String) -> Readiness {
        var r = r
        let db = ReadinessCommands.quoted(path)
        let fix = { (steps: [String]) in steps.map { $0.replacingOccurrences(of: db, with: "DB") } }
        r.database = nil
        for a in r.apps.indices {
            r.apps[a].nextSteps = fix(r.apps[a].nextSteps)
            r.apps[a].legacy.nextSteps = fix(r.apps[a].legacy.nextSteps)
            for i in r.apps[a].routes.indices { r.apps[a].routes[i].nextSteps = fix(r.apps[a].routes[i].nextSteps) }
        }
        return r
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

    /// Rows, their completions and a completion of a row that does not exist, in the same
    /// batches (on PostgreSQL one pipeline each): the unknown one fails alone, every other
    /// row is completed, and nothing is written twice.
    @Test(arguments: AuditEngine.allCases) func aCompletionOfAnUnknownRowFailsAloneBesideRowsAndTheirCompletions(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            let results = await withTaskGroup(of: (String, Bool).self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let id = "P\(index)"
                        do {
                            try await store.begin(sampleEntry(id))
                            try await store.finish(id, sampleCompletion())
                            return (id, true)
                        } catch {
                            return (id, false)
                        }
                    }
                }
                group.addTask { ("NOPE", (try? await store.finish("NOPE", sampleCompletion())) != nil) }
                return await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect(results["NOPE"] == false)
            #expect(results.filter { $0.key != "NOPE" && $0.value }.count == 40)
            #expect(try store.reader.query("SELECT count(*) FROM requests WHERE outcome = 'forwarded'") == [[.integer(40)]])
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
            try await fillVariedAudit(store)
            for table in ["requests", "findings", "shadow_comparisons"] {
                let names = try store.reader.query("SELECT DISTINCT instance_name FROM \(table)")
                #expect(names == [[.text("edge-7")]], "\(table)")
            }
            await store.close()
        }
    }
}
