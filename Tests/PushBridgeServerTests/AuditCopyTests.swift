import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// `pushbridge audit copy`: a real SQLite audit written by ``AuditStore`` copied by the real
/// binary into the throwaway PostgreSQL cluster, checked with SQL on both sides.
@Suite(.serialized) struct AuditCopyTests {
    /// Every table's copied columns, every row, from SQLite and PostgreSQL, in key order; a
    /// value as text (integers in decimal, reals through `Double`), nil for NULL.
    static func rows(_ table: AuditCopyTable, sqlite path: String, postgres uri: String) throws -> (file: [[String?]], copied: [[String?]]) {
        let file = try SQLiteDatabase(path: path)
        let present = Set(try file.rows("SELECT name FROM pragma_table_info(?)", [.text(table.name)]).compactMap { $0.first?.textValue })
        let columns = table.columns.map { present.contains($0) ? $0 : "NULL" }.joined(separator: ", ")
        let order = table.key.joined(separator: ", ")
        let fileRows = try file.rows("SELECT \(columns) FROM \(table.name) ORDER BY \(order)").map { row in
            row.map { value -> String? in
                switch value {
                case .null: nil
                case .integer(let integer): String(integer)
                case .real(let real): "\(real)"
                case .text(let text): text
                case .blob: "blob"
                }
            }
        }
        let types = try PostgresConnection(uri).execute("""
            SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1
            """, [table.name]).rows
        let reals = Set(types.filter { $0[1] == "double precision" }.compactMap { $0[0] })
        let copied = try PostgresConnection(uri).execute("SELECT \(table.columns.joined(separator: ", ")) FROM \(table.name) ORDER BY \(order)").rows.map { row in
            zip(table.columns, row).map { column, value in reals.contains(column) ? value.flatMap(Double.init).map { "\($0)" } : value }
        }
        return (fileRows, copied)
    }

    /// The standard apps (`pw` with the tests' segment map) before `upstream`.
    static func configuration(_ upstream: RecordingSandbox) -> TestConfiguration {
        TestConfiguration(upstream: upstream.baseURL).with { $0.app("pw") { $0.segmentMap = TestApp.pushwooshSegmentMap } }
    }

    static func count(_ table: String, _ uri: String) throws -> Int {
        Int(try PostgresConnection(uri).execute("SELECT count(*) FROM \(table)").value(0, 0) ?? "") ?? -1
    }

    /// Writes an audit with rows of several outcomes, findings, attempts, a pending row, a
    /// shadow comparison and a scheduled-send mirror row.
    static func writeAudit(_ path: String) async throws -> AuditStore {
        let store = try AuditStore(path: path)
        var started = sampleCompletion()
        started.ledger = [.started(ActivityRecord(app: "app-1", activityId: "act-copy", dialect: .onesignal, holder: .legacy,
                                                  startedAt: 1_700_000_000_000, cohortKey: "c0ffee", requestId: "COPY-FWD"))]
        try await store.record(sampleEntry("COPY-FWD", receivedAt: 1_700_000_000_000), started)
        try await store.record(sampleEntry("COPY-REJ", receivedAt: 1_700_000_001_000, findings: 1),
                               AuditCompletion(finishedAt: 1_700_000_001_005, outcome: .rejected, responseStatus: 400,
                                               responseBody: #"{"errors":["bad"]}"#, errorMessage: "name: required"))
        try await store.record(sampleEntry("COPY-FAIL", receivedAt: 1_700_000_002_000, findings: 0),
                               AuditCompletion(finishedAt: 1_700_000_002_900, outcome: .failed, upstreamStatus: 503, upstreamBody: "down",
                                               upstreamLatencyMs: 0.1 + 0.2,
                                               attempts: [UpstreamAttempt(startedAt: 1_700_000_002_000, status: 503, latencyMs: 1.25),
                                                          UpstreamAttempt(startedAt: 1_700_000_002_400, error: "timeout", latencyMs: 400)],
                                               responseStatus: 502, errorMessage: "OpenPush answered 503"))
        try await store.begin(sampleEntry("COPY-PEND", receivedAt: 1_700_000_003_000, findings: 2))
        try await store.record(ShadowComparison(
            requestId: "COPY-FWD", comparedAt: 1_700_000_000_500, dialect: .onesignal, route: .start, sourceApp: "app-1",
            primary: .init(provider: "openpush", status: 201, body: #"{"id":"n1"}"#, latencyMs: 12.5, error: nil),
            shadow: .init(provider: "legacy:onesignal", status: 400, body: #"{"errors":["x"]}"#, latencyMs: 30.75, error: nil)))
        let database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA busy_timeout = 5000")
        try database.execute("""
            INSERT INTO scheduled_sends (request_id, ordinal, send_at, state, target_app, request, created_at, claimed_at, sent_at, upstream_status, attempts, error_message)
            VALUES ('COPY-FWD', 0, 1700000100000, 'sent', 'op-app', '{"method":"POST"}', 1700000000000, 1700000100001, 1700000100200, 201, '[]', NULL)
            """, [])
        #expect(try store.reader.saveRollback(RolloutRollback(app: "app-1", at: 1_700_000_004_000, threshold: "max_openpush_error_rate",
                                                              evidence: "6 of 20 failed", instance: InstanceSettings.defaultName)))
        // An app whose in-flight ledger rows the cap forgot (legacy stays on for it after the move).
        try database.execute("INSERT INTO activities_forgotten (app, in_flight_until, forgotten) VALUES ('app-1', 1700043200000, 3)")
        // The stage history: a change recorded by an instance, and one recorded without one.
        try store.reader.insertStageChange(StageChange(at: 1_700_000_000_100, app: "app-1", kind: .mode, stage: AppStage(mode: .rollout, percent: 5, legacy: true),
                                                       previous: "shadow", detail: "rollout.percent 0 → 5", instance: InstanceSettings.defaultName, fingerprint: "f00d"))
        try store.reader.insertStageChange(StageChange(at: 1_700_000_004_000, app: "app-1", kind: .rollback, stage: AppStage(mode: .rollout, percent: 5, legacy: true, rolledBack: true),
                                                       previous: "rollout 5%", detail: "max_openpush_error_rate: 6 of 20 failed", instance: nil, fingerprint: nil))
        // Rows written before the file had instance names.
        try database.execute("UPDATE requests SET instance_name = NULL WHERE request_id = 'COPY-REJ'")
        // (Its findings' `instance_name` is the intent's: SQLite migration 18 stores them inline.)
        return store
    }

    @Test func copiesEveryRowAndColumnAndCopyingAgainChangesNothing() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try await withTemporaryAudit { path in
            let store = try await Self.writeAudit(path)
            let first = try await CLIRunner.runAsync(["audit", "copy", "--from", path, "--to", uri])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr.isEmpty, "progress was written to a standard error that is not a terminal: \(first.stderr)")
            #expect(first.stdout.contains(": requests 4 read, 4 copied, 0 updated, 0 already present; findings 6 read, 6 copied"), "\(first.stdout)")
            // Rows that record an instance keep it; only the others are stored under the label.
            #expect(first.stdout.contains("instance_name: 11 rows kept the one their file records (\(InstanceSettings.defaultName) 11); 4 rows recorded none, stored as copied:audit.sqlite"),
                    "\(first.stdout)")
            let expected = ["requests": 4, "findings": 6, "shadow_comparisons": 1, "scheduled_sends": 1, "activities": 1, "activities_forgotten": 1, "rollout_rollbacks": 1, "stage_changes": 2]
            #expect(Set(expected.keys) == Set(AuditCopyTable.all.map(\.name)))
            for (table, rows) in expected { #expect(try Self.count(table, uri) == rows, "\(table)") }
            let labelled: Set = ["requests", "findings", "scheduled_sends", "stage_changes"], named: Set = ["requests", "findings", "shadow_comparisons", "rollout_rollbacks", "stage_changes"]
            for table in AuditCopyTable.all {
                let (file, copied) = try Self.rows(table, sqlite: path, postgres: uri)
                guard let instance = table.columns.firstIndex(of: AuditCopyTable.instanceColumn) else {
                    #expect(copied == file && !copied.isEmpty, "\(table.name): the copied rows differ from the file's")
                    continue
                }
                #expect(copied.contains { $0[instance] == "copied:audit.sqlite" } == labelled.contains(table.name), "\(table.name)")
                #expect(copied.contains { $0[instance] == InstanceSettings.defaultName } == named.contains(table.name), "\(table.name)")
                let withLabel = file.map { row in row.enumerated().map { $0.offset == instance ? $0.element ?? "copied:audit.sqlite" : $0.element } }
                #expect(copied == withLabel, "\(table.name): the copied rows differ from the file's")
            }
            let failed = try PostgresConnection(uri).execute(
                "SELECT upstream_latency_ms, attempts, response_status, outcome, error_message FROM requests WHERE request_id = 'COPY-FAIL'").rows
            #expect(failed.first?[0].flatMap(Double.init) == 0.1 + 0.2 && failed.first?[3] == "failed" && failed.first?[4] == "OpenPush answered 503")
            #expect(failed.first?[1]?.contains("timeout") == true)
            // After the move, the activity still lives where it was started: its updates go there.
            let moved = try await ActivityLedger(path: uri).record(app: "app-1", activityId: "act-copy", now: 1_700_000_000_001)
            #expect(moved?.holder == .legacy && moved?.requestId == "COPY-FWD")

            let again = try await CLIRunner.runAsync(["audit", "copy", "--from", path, "--to", uri])
            #expect(again.status == 0 && again.stdout.contains("requests 4 read, 0 copied, 0 updated, 4 already present"), "\(again.stdout)\(again.stderr)")
            for (table, rows) in expected { #expect(try Self.count(table, uri) == rows, "\(table) after the second copy") }

            try await store.finish("COPY-PEND", sampleCompletion(finishedAt: 1_700_000_003_100))
            await store.close()
            let third = try await CLIRunner.runAsync(["audit", "copy", "--from", path, "--to", uri])
            #expect(third.status == 0 && third.stdout.contains("requests 4 read, 0 copied, 1 updated, 3 already present"), "\(third.stdout)\(third.stderr)")
            let finished = try PostgresConnection(uri).execute("SELECT outcome, finished_at FROM requests WHERE request_id = 'COPY-PEND'").rows
            #expect(finished.first?[0] == "forwarded" && finished.first?[1] == "1700000003100")
            for (table, rows) in expected { #expect(try Self.count(table, uri) == rows, "\(table) after the third copy") }
        }
    }

    @Test func theCopyReadsBackAsTheFileDoes() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await fillVariedAudit(store)
            // `scores` moved to shadow halfway through: readiness judges it since then, from the history.
            try store.reader.insertStageChange(StageChange(at: 1_700_000_000_000 + 15 * 60_000, app: "scores", kind: .mode, stage: AppStage(mode: .shadow, legacy: true),
                                                           previous: "observe", detail: "mode observe → shadow", instance: "proxy-1", fingerprint: "f00d"))
            await store.close()
            let uri = try PostgresTestCluster.start().makeDatabase()
            let counts = try AuditCopy(from: path, to: try PostgresURI(uri), batchSize: 7).run()
            #expect(counts.map(\.read) == [30, 43, 6, 0, 0, 0, 0, 1] && counts.map(\.inserted) == counts.map(\.read))
            let original = try AuditReader(path: path), copied = try AuditReader(path: uri)
            // The same report, but for the audit it names: readiness prints its commands with the `--db` it judged.
            let report = try copied.report()
            #expect(report.readiness.database == uri)
            #expect("\(report)" == "\(try original.report())".replacingOccurrences(of: path, with: uri))
            // After the move `scores` is still judged since its stage began, from the copied history.
            let scores = report.readiness.apps.first { $0.app == "scores" }
            #expect(scores?.window.basis == .currentStage && scores?.window.since == 1_700_000_000_000 + 15 * 60_000, "\(String(describing: scores?.window))")
            #expect(try copied.show(requestId: "R0005") == original.show(requestId: "R0005"))
            #expect(try copied.list(limit: 100) == original.list(limit: 100))
        }
    }

    @Test func smallBatchesCopyTheSameRowsAndReportProgressAfterEachCommit() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try await withTemporaryAudit { path in
            try await Self.writeAudit(path).close()
            var seen: [AuditCopyProgress] = []
            let counts = try AuditCopy(from: path, to: try PostgresURI(uri), batchSize: 2).run { seen.append($0) }
            #expect(counts.map(\.inserted) == [4, 6, 1, 1, 1, 1, 1, 2] && counts.map(\.read) == [4, 6, 1, 1, 1, 1, 1, 2])
            #expect(seen.map(\.done) == [2, 4, 6, 8, 10, 11, 12, 13, 14, 15, 17] && seen.allSatisfy { $0.total == 17 }, "\(seen)")
            #expect(seen.map(\.table) == ["requests", "requests", "findings", "findings", "findings", "shadow_comparisons", "scheduled_sends", "activities", "activities_forgotten", "rollout_rollbacks", "stage_changes"])
            for table in AuditCopyTable.all {
                let (file, copied) = try Self.rows(table, sqlite: path, postgres: uri)
                #expect(file.count == copied.count && copied.count > 0, "\(table.name)")
            }
            let again = try AuditCopy(from: path, to: try PostgresURI(uri), batchSize: 3).run()
            #expect(again.map(\.unchanged) == [4, 6, 1, 1, 1, 1, 1, 2] && again.map(\.inserted) == [0, 0, 0, 0, 0, 0, 0, 0])
        }
    }

    @Test func aRowAnotherInstanceWroteIsLeftAloneAndTheInstanceOptionLabelsRows() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try await withTemporaryAudit { path in
            try await Self.writeAudit(path).close()
            let target = try PostgresConnection(uri)
            try PostgresSchema.migrator.migrate(target)
            try target.execute("INSERT INTO requests (request_id, received_at, outcome, instance_name) VALUES ('COPY-FAIL', 1, 'forwarded', 'live-1')")
            let out = try await CLIRunner.runAsync(["audit", "copy", "--from", path, "--to", uri, "--instance", "old-host"])
            #expect(out.status == 0 && out.stdout.contains("requests 4 read, 3 copied, 0 updated, 1 already present"), "\(out.stdout)\(out.stderr)")
            let rows = try target.execute("SELECT request_id, outcome, instance_name FROM requests ORDER BY request_id").rows
            #expect(rows.contains { $0 == ["COPY-FAIL", "forwarded", "live-1"] }, "\(rows)")
            #expect(rows.filter { $0[2] == "old-host" }.map { $0[0] } == ["COPY-REJ"], "\(rows)")
        }
    }

    @Test func aPendingScheduledStartMovesToPostgreSQLAndOneInstanceThereSendsItOnce() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let folder = try TemporaryDirectory("pushbridge-copy-starts")
        // An SQLite instance takes a start for the next whole minute (send_date has minutes), then stops.
        let upstream = try RecordingSandbox()
        let sqlite = try ProxyHarness(.inProcess, configuration: Self.configuration(upstream), directory: folder.url)
        let sendAt = (Int64(Date().timeIntervalSince1970) / 60 + 2) * 60
        let taken = try await sqlite.send(path: "/json/1.3/startLiveActivity", body: CrashSafetyTests.scheduledBody(sendAt: sendAt))
        #expect(taken.status == 200, "\(String(decoding: taken.body, as: UTF8.self))")
        await sqlite.stop()
        let audit = folder.url.appendingPathComponent("audit.sqlite").path, starts = folder.url.appendingPathComponent("audit-scheduled.sqlite").path
        let pending = try await ScheduledStartStore(path: starts, recover: false).list(states: [.pending])
        #expect(pending.count == 1, "the SQLite instance stored no pending start")
        // Due in a second, so the test need not wait for the minute (the file is at rest: its instance stopped).
        try SQLiteDatabase(path: starts).execute("UPDATE scheduled_starts SET send_at = \(Int64(Date().timeIntervalSince1970 * 1000) + 1_000)")

        let copied = try await CLIRunner.runAsync(["audit", "copy", "--from", audit, "--to", uri])
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(copied.stdout.contains("rows kept the one their file records (\(InstanceSettings.defaultName) ") && copied.stdout.contains("; 0 rows recorded none, stored as copied:audit.sqlite"),
                "\(copied.stdout)")
        #expect(!copied.stdout.contains(" as copied:audit.sqlite:"), "the summary says every row is stored as copied:audit.sqlite: \(copied.stdout)")
        #expect(copied.stdout.contains("scheduled starts from \(starts): 1 read, 1 pending moved"), "\(copied.stdout)")
        #expect(try PostgresConnection(uri).execute("SELECT created_by, state FROM scheduled_starts").rows == [[InstanceSettings.defaultName, "pending"]])
        let listed = try await CLIRunner.runAsync(["scheduled", "list", "--db", uri, "--all"])
        #expect(listed.status == 0 && listed.stdout.contains(pending[0].id) && listed.stdout.contains("1 scheduled start(s)"), "\(listed.stdout)\(listed.stderr)")
        let again = try await CLIRunner.runAsync(["audit", "copy", "--from", audit, "--to", uri])
        #expect(again.stdout.contains("1 read, 0 pending moved") && again.stdout.contains("0 finished since the last copy, 1 already present"), "\(again.stdout)")

        // An instance on PostgreSQL sends the moved start at its time, once.
        let postgres = try ProxyHarness(.inProcess, configuration: Self.configuration(upstream).with { $0.auditDatabase = uri })
        let sendPath = "/apps/app_3f9c2b/activities/activity/FoodDeliveryAttributes"
        #expect(await eventually(30) { upstream.all.contains { $0.path == sendPath } }, "the moved start never reached the upstream")
        let row: @Sendable () -> String? = { try? PostgresConnection(uri).execute("SELECT outcome FROM requests WHERE request_id = $1", [pending[0].requestId]).value(0, 0) }
        #expect(await eventually(10) { row() == "sent" }, "the audit row of the moved start: \(row() ?? "none")")
        #expect(try PostgresConnection(uri).execute("SELECT state FROM scheduled_starts").value(0, 0) == "sent")
        #expect(upstream.all.filter { $0.path == sendPath }.count == 1)
        await postgres.stop()
    }

    @Test func aMissingSchedulerFileIsSaidAndAnExplicitOneMustExist() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try await withTemporaryAudit { path in
            try await Self.writeAudit(path).close()
            let out = try await CLIRunner.runAsync(["audit", "copy", "--from", path, "--to", uri])
            let beside = String(path.dropLast(7)) + "-scheduled.sqlite"
            #expect(out.status == 0 && out.stdout.contains("no scheduler file at \(beside): no scheduled start was moved (if that instance's delivery.scheduler_db named another file, run again with --scheduler FILE)"),
                    "\(out.stdout)")
            let named = try await CLIRunner.runAsync(["audit", "copy", "--from", path, "--to", uri, "--scheduler", "/nonexistent/starts.sqlite"])
            #expect(named.status == 1 && named.stderr.contains("no scheduler file at /nonexistent/starts.sqlite"), "\(named.stderr)")
        }
    }

    @Test func aPasswordInTheURIIsRefusedBeforeAnythingIsCopied() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try await withTemporaryAudit { path in
            try await Self.writeAudit(path).close()
            let withPassword = uri.replacingOccurrences(of: "postgres@", with: "postgres:secret@")
            let out = try await CLIRunner.runAsync(["audit", "copy", "--from", path, "--to", withPassword])
            #expect(out.status == 2 && out.stderr.contains("--to: the URI carries a password; give it through PGPASSWORD, PGPASSFILE or ~/.pgpass"), "\(out.stderr)")
            #expect(!out.stderr.contains("secret") && out.stdout.isEmpty)
            let tables = try PostgresConnection(uri).execute("SELECT to_regclass('requests') IS NULL").value(0, 0)
            #expect(tables == "t", "the database was migrated or written")
            let notPostgres = try await CLIRunner.runAsync(["audit", "copy", "--from", path, "--to", "/tmp/x.db"])
            #expect(notPostgres.status == 2 && notPostgres.stderr.contains("--to takes a postgresql:// URI, not '/tmp/x.db'"), "\(notPostgres.stderr)")
        }
    }

    @Test func aMissingFileIsNamedAndNotCreated() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("pushbridge-missing-\(UUID().uuidString).sqlite").path
        let out = try await CLIRunner.runAsync(["audit", "copy", "--from", missing, "--to", uri])
        #expect(out.status == 1 && out.stderr == "pushbridge audit copy: no audit file at \(missing)\n", "\(out.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing))
        let usage = try await CLIRunner.runAsync(["audit", "copy", "--to", uri])
        #expect(usage.status == 2 && usage.stderr.contains("missing --from FILE"), "\(usage.stderr)")
    }

    @Test func aTerminalGetsAProgressBar() async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try await withTemporaryAudit { path in
            try await Self.writeAudit(path).close()
            // `script` gives the command a pseudo-terminal for its standard error (and output).
            let command = [CLIRunner.binary.path, "audit", "copy", "--from", path, "--to", uri].map { "'\($0)'" }.joined(separator: " ")
            let out = try CLIRunner.runProcess(URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command, "/dev/null"])
            #expect(out.status == 0 && out.stdout.contains("17/17 rows") && out.stdout.contains("█"), "\(out.stdout)\(out.stderr)")
        }
    }

    @Test func theMappingRefusesAColumnItDoesNotName() {
        let table = AuditCopyTable.findings
        #expect(table.mismatch(source: table.columns, target: table.columns) == nil)
        #expect(table.mismatch(source: table.columns + ["extra"], target: table.columns)?.contains("findings.extra has no counterpart") == true)
        #expect(table.mismatch(source: table.columns, target: table.columns + ["extra"])?.contains("findings.extra has no source") == true)
        #expect(table.mismatch(source: table.columns.filter { $0 != "message" }, target: table.columns)?.contains("no message column") == true)
        #expect(table.mismatch(source: table.columns.filter { $0 != AuditCopyTable.instanceColumn }, target: table.columns) == nil)
    }
}
