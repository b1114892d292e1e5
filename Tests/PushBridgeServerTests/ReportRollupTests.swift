import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 30, item 2: the report's totals, readiness and the admin page come from the
/// per-minute rollups the writer folds into each batch, and give exactly what the rows give
/// (``AuditReader/oracleReport``, the row-based queries the report had before, and a reader
/// that ignores the rollups), on both engines, for windows that are and are not on whole
/// minutes, after recovery, the rollups' migration and pruning.
@Suite(.serialized) struct ReportRollupTests {
    static let rows = 400

    /// The windows compared: the whole audit, edges inside minutes, whole minutes, one
    /// partial minute, and the app, dialect and route filters; whole hours exactly, and a
    /// few hours (the chart per 15 minutes: read per minute, hours or not).
    static func filters() -> [ReportFilter] {
        let start = SyntheticTraffic.start, span = SyntheticTraffic.span
        return [
            ReportFilter(),
            ReportFilter(since: start + span / 7 + 12_345, until: start + span / 2 + 41_007),
            ReportFilter(since: start + 60_000 * 1_000, until: start + 60_000 * 20_000),
            ReportFilter(since: start + span / 3 + 1_000, until: start + span / 3 + 59_000),
            ReportFilter(since: start + span / 4 + 30_000),
            ReportFilter(until: start + span / 4 + 30_000),
            ReportFilter(app: "app-03"),
            ReportFilter(since: start + span / 5 + 777, dialect: "onesignal", route: "update"),
            ReportFilter(since: start - start % 3_600_000 + 3_600_000 * 40, until: start - start % 3_600_000 + 3_600_000 * 300),
            ReportFilter(since: start + span / 2 - 3 * 3_600_000 - 61_001, until: start + span / 2 + 2 * 3_600_000 + 119_999),
        ]
    }

    /// The mix: the bench's synthetic traffic (every route, findings, rejections, 429s and
    /// retries), a third of it begun and finished apart, every 25th left in flight, and
    /// findings on array elements (folded to `notifications[]`, counted by request); every
    /// 7th + 3 under a configured app name, and shadow comparisons of every kind readiness
    /// tells apart, some replaced (``ShadowRollupTests/record(_:_:_:)``).
    static func write(_ store: AuditStore, rows: Int = rows) async throws {
        for i in 0..<rows { try await write(store, row: i, of: rows) }
    }

    /// Row `i` of the mix of `rows` (``write(_:rows:)``).
    static func write(_ store: AuditStore, row i: Int, of rows: Int) async throws {
        var request = SyntheticTraffic.request(i, of: rows)
        if i % 7 == 3 { request.entry.appName = "named-" + (request.entry.sourceApp ?? "") }
        if i % 6 == 0 {
            request.entry.findings += (0..<(1 + i / 6 % 3)).map {
                Finding(field: "notifications[\($0)].rollup_probe", kind: .dropped, message: "element \($0) sound dropped")
            }
        }
        request.entry.findings += readinessProbes(i)
        if request.completion.outcome == .forwarded { request.completion = openPushAnswer(i, request.completion) }
        if i % 25 == 0 {
            try await store.begin(request.entry)
        } else if i % 3 == 0 {
            try await store.begin(request.entry)
            try await store.finish(request.entry.requestId, request.completion)
        } else {
            try await store.record(request.entry, request.completion)
        }
        try await ShadowRollupTests.record(store, i, request)
    }

    /// Findings readiness judges by severity and message, not by kind alone: every 8th request
    /// has a caveat naming a broken OpenPush rule (judged, shown as `openpush rule`) beside one
    /// that does not (not judged) on another element; every 4th an info-severity drop (not
    /// judged) on one element, and every 16th a warning-severity one on another after it.
    static func readinessProbes(_ i: Int) -> [Finding] {
        var probes: [Finding] = []
        if i % 8 == 0 {
            probes.append(Finding(field: "notifications[0].rollup_note", kind: .caveat, message: "a caveat readiness does not judge"))
            probes.append(Finding(field: "notifications[1].rollup_note", kind: .caveat, message: "OpenPush would reject this: notifications[1].rollup_note too long"))
        }
        if i % 4 == 0 { probes.append(Finding(field: "notifications[0].rollup_mixed", kind: .dropped, severity: .info, message: "dropped, no matter")) }
        if i % 16 == 0 { probes.append(Finding(field: "notifications[1].rollup_mixed", kind: .dropped, severity: .warning, message: "dropped, and it matters")) }
        return probes
    }

    /// OpenPush's answers readiness tells apart: every 11th request failed (502 after a 429),
    /// every 13th a population gap (OpenPush's 404 for an activity it never opened), every
    /// 17th answered by the legacy provider (not OpenPush's call), every 19th sent.
    static func openPushAnswer(_ i: Int, _ forwarded: AuditCompletion) -> AuditCompletion {
        var completion = forwarded
        if i % 11 == 1 {
            (completion.outcome, completion.upstreamStatus) = (.failed, 502)
            completion.attempts = [UpstreamAttempt(startedAt: forwarded.finishedAt - 15, status: 429, latencyMs: 3), UpstreamAttempt(startedAt: forwarded.finishedAt - 5, status: 502, latencyMs: 4)]
        } else if i % 13 == 2 {
            (completion.upstreamStatus, completion.upstreamBody) = (404, #"{"error":"\#(PopulationGap.noOpenActivity)"}"#)
        } else if i % 17 == 3 {
            (completion.upstreamStatus, completion.errorMessage) = (500, LegacyMode.observeMessage + " (legacy answered 500)")
        } else if i % 19 == 4 {
            completion.outcome = .sent
        }
        return completion
    }

    /// Compares the two reports, rendered too, and readiness (judged from the rollups, and from
    /// the rows by a reader that ignores them), for every filter.
    static func compare(_ reader: AuditReader, path: String, _ label: String) throws {
        try HourlyRollupTests.expectHoursAreTheirMinutes(reader, label)
        try MinuteSendsRollupTests.expectMinuteSendsAreTheRows(reader, label)
        let rows = try AuditReader.rowsOnly(path)
        for filter in filters() {
            let readiness = try reader.readiness(filter)
            #expect(readiness == (try rows.readiness(filter)), "\(label) readiness \(filter.summary)")
            #expect(adminPage(readiness) == adminPage(try rows.readiness(filter)), "\(label) admin page \(filter.summary)")
            let fromRollups = try reader.report(filter)
            let fromRows = try reader.oracleReport(filter)
            #expect(fromRollups == fromRows, "\(label) \(filter.summary)")
            // The shadow summary is the same code in both: its latencies against the SQL's nearest ranks.
            #expect(fromRollups.shadow.primaryLatency == (try reader.oraclePercentiles("primary_latency_ms", filter)), "\(label) \(filter.summary)")
            #expect(fromRollups.shadow.shadowLatency == (try reader.oraclePercentiles("shadow_latency_ms", filter)), "\(label) \(filter.summary)")
            for format in [ReportFormat.text, .json] {
                #expect(ReportRenderer.render(fromRollups, as: format) == ReportRenderer.render(fromRows, as: format), "\(label) \(format) \(filter.summary)")
            }
        }
    }

    /// Runs `body` with the path of an audit holding the ``write(_:rows:)`` mix (its store
    /// closed) and a reader of it.
    static func withWrittenAudit(_ engine: AuditEngine, _ body: (String, AuditReader) async throws -> Void) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await write(store)
            await store.close()
            try await body(path, try AuditReader(path: path))
        }
    }

    /// The admin page (`GET /admin/`) over `readiness`, at a fixed time: its figures are readiness's.
    static func adminPage(_ readiness: Readiness) -> String {
        AdminPage.render(apps: readiness.apps.map { AdminAppStatus(name: $0.app, dialect: "onesignal", stage: "shadow") }, readiness: readiness, inFlight: nil,
                         now: SyntheticTraffic.start + SyntheticTraffic.span)
    }

    @Test(arguments: AuditEngine.allCases)
    func theReportFromRollupsIsTheReportFromTheRows(_ engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await Self.write(store)
            let reader = try AuditReader(path: path)
            #expect(reader.hasRollups)
            // The rollups hold every request (the in-flight ones as pending), so the report reads them.
            let rolled = try reader.query("SELECT outcome, sum(requests) FROM rollup_requests GROUP BY outcome HAVING sum(requests) != 0 ORDER BY outcome")
            let rows = try reader.query("SELECT outcome, count(*) FROM requests GROUP BY outcome ORDER BY outcome")
            #expect(rolled.map { "\($0[0].textValue ?? "")=\($0[1].integerValue ?? -1)" } == rows.map { "\($0[0].textValue ?? "")=\($0[1].integerValue ?? -1)" })
            #expect(try reader.report().upstream.outcomes.contains(Count("pending", Self.rows / 25)))
            // Folded fields count requests, once each however many elements had the finding.
            let sound = try reader.report().dropped.filter { $0.field == "notifications[].rollup_probe" }
            #expect(sound.reduce(0) { $0 + $1.requests } == Self.rows / 6 + 1, "\(sound)")
            try Self.compare(reader, path: path, "\(engine) live")
            await store.close()
            // Recovery turns the in-flight ones unknown, in the rollups too.
            let reopened = try AuditStore(path: path)
            await reopened.close()
            #expect(try reader.report().upstream.outcomes.contains(Count("unknown", Self.rows / 25)))
            try Self.compare(reader, path: path, "\(engine) recovered")
        }
    }

    /// Issue 30, item 2: readiness's finding groups come from `rollup_findings` (whole
    /// minutes) and the log (a window's edges), counted as the rows count them: by severity
    /// and message, each request once per group, the example's message its first judged
    /// finding. The rows' findings deleted, readiness over whole minutes still has them.
    @Test(arguments: AuditEngine.allCases)
    func readinessFindingGroupsComeFromTheRollups(_ engine: AuditEngine) async throws {
        try await Self.withWrittenAudit(engine) { path, reader in
            func groups(_ readiness: Readiness, _ field: String) -> [ReadinessFinding] {
                readiness.apps.flatMap(\.routes).flatMap { $0.warnings + $0.rejections }.filter { $0.field == field }
            }
            let readiness = try reader.readiness()
            #expect(readiness == (try AuditReader.rowsOnly(path).readiness()))
            let rules = groups(readiness, "notifications[].rollup_note")
            #expect(rules.allSatisfy { $0.kind == "openpush rule" && $0.exampleMessage.hasPrefix("OpenPush would reject this") }, "\(rules)")
            #expect(rules.reduce(0) { $0 + $1.requests } == Self.rows / 8)
            let mixed = groups(readiness, "notifications[].rollup_mixed")
            #expect(mixed.allSatisfy { $0.exampleMessage == "dropped, and it matters" }, "\(mixed)")
            #expect(mixed.reduce(0) { $0 + $1.requests } == Self.rows / 16)
            guard engine == .sqlite else { return }
            let database = try SQLiteDatabase(path: path)
            try database.execute("DELETE FROM findings WHERE field LIKE '%rollup_note'")
            let fromRollups = groups(try reader.readiness(), "notifications[].rollup_note")
            #expect(fromRollups.reduce(0) { $0 + $1.requests } == Self.rows / 8)
            // The example's message is read from the log: gone with its rows.
            #expect(fromRollups.allSatisfy { $0.exampleMessage.isEmpty })
        }
    }

    /// Issue 30, item 2: readiness's OpenPush figures (calls, errors, 429s, population gaps)
    /// come from `rollup_requests`'s counters, its example error from the log in the newest
    /// minute with one. The log's outcomes deleted, readiness still has the figures.
    @Test(arguments: AuditEngine.allCases)
    func readinessOpenPushFiguresComeFromTheRollups(_ engine: AuditEngine) async throws {
        try await Self.withWrittenAudit(engine) { path, reader in
            func sum(_ readiness: Readiness, _ figure: (RouteReadiness) -> Int) -> Int { readiness.apps.flatMap(\.routes).reduce(0) { $0 + figure($1) } }
            let readiness = try reader.readiness()
            #expect(readiness == (try AuditReader.rowsOnly(path).readiness()))
            // The admin page shows them: the route's OpenPush errors with the example's id.
            let example = try #require(readiness.apps.flatMap(\.routes).compactMap(\.openPushErrorExample).first)
            #expect(Self.adminPage(readiness).contains(example))
            let errors = sum(readiness, \.openPushErrors), limited = sum(readiness, \.rateLimited), gaps = sum(readiness, \.openPushGaps)
            // OpenPush as the shadow errs without a 429 too (a 500, a timeout): fewer 429s than errors.
            #expect(errors > 10 && limited > 10 && gaps > 10, "errors \(errors), 429s \(limited), gaps \(gaps)")
            let examples = readiness.apps.flatMap(\.routes).compactMap(\.openPushErrorExample)
            #expect(!examples.isEmpty)
            guard engine == .sqlite else { return }
            try SQLiteDatabase(path: path).execute("DELETE FROM request_outcomes")
            let after = try reader.readiness()
            #expect(sum(after, \.openPushErrors) == errors && sum(after, \.rateLimited) == limited)
            // The primary's examples are read from the log: gone with its outcomes; what is left
            // is OpenPush's errors as the shadow (the shadow rollup's).
            let shadowErrors = Set(try reader.query("SELECT request_id FROM shadow_comparisons WHERE shadow_provider = 'openpush' AND verdict <> 'shadow_skipped' "
                                                    + "AND (shadow_status IS NULL OR shadow_status NOT BETWEEN 200 AND 299 OR shadow_error IS NOT NULL)").compactMap { $0.first?.textValue })
            #expect(after.apps.flatMap(\.routes).compactMap(\.openPushErrorExample).allSatisfy { shadowErrors.contains($0) })
        }
    }

    /// Issue 30, target "report / readiness over 1,000,000 rows ≤ 2 s": every read of
    /// `rollup_requests` is a `GROUP BY` that sorts every rollup row (about one per request
    /// when traffic is spread thinly), so readiness reads it once (its routes' figures; five
    /// reads before the rollups' passes were merged, two before the busiest minute had its
    /// own table) and the report three times (its cells with the retries, its minutes, and
    /// readiness's one), with the same figures as the rows give. The busiest minute reads
    /// `rollup_minute_sends` alone: no condition but the window, no grouping, no sort. A window
    /// with whole hours reads them from the hourly rollups in the same passes.
    @Test(arguments: AuditEngine.allCases)
    func readinessAndTheReportReadTheRequestRollupsInFewPasses(_ engine: AuditEngine) async throws {
        try await Self.withWrittenAudit(engine) { path, reader in
            func recorded(_ body: () throws -> Void) throws -> [String] {
                reader.recordedQueries.withLock { $0 = [] }
                try body()
                return reader.recordedQueries.withLock { queries in
                    defer { queries = nil }
                    return queries ?? []
                }
            }
            func passes(_ body: () throws -> Void) throws -> [String] { try recorded(body).filter { $0.contains("FROM rollup_requests") } }
            for filter in [ReportFilter(), Self.filters()[1], ReportFilter(app: "app-03")] {
                var readiness: Readiness?
                let queries = try recorded { readiness = try reader.readiness(filter) }
                let readinessPasses = queries.filter { $0.contains("FROM rollup_requests") }
                #expect(readinessPasses.count == 1, "\(filter.summary): \(readinessPasses)")
                #expect(readiness == (try AuditReader.rowsOnly(path).readiness(filter)), "\(filter.summary)")
                var report: Report?
                let reportPasses = try passes { report = try reader.report(filter) }
                #expect(reportPasses.count == 3, "\(filter.summary): \(reportPasses)")
                #expect(report == (try reader.oracleReport(filter)), "\(filter.summary)")
                #expect(readinessPasses.filter { $0.contains("FROM \(AuditRollupHourSchema.requestsTable)") }.count == 1, "\(filter.summary): \(readinessPasses)")
                // The finding groups sort only the rollup rows with a judged request.
                let findings = try #require(queries.first { $0.contains("sum(judged_requests)") }, "\(queries)")
                #expect(findings.contains("AND judged_requests <> 0"), "\(findings)")
                // The busiest minute reads its own table, summed in its key's order: SQLite sorts
                // nothing for it (a DISTINCT keeps a b-tree of the few apps it finds).
                let busiest = queries.filter { $0.contains("FROM \(AuditRollupMinuteSendsSchema.table)") }
                #expect(busiest.count >= 3 && busiest.allSatisfy { !$0.contains("rollup_requests") }, "\(queries)")
                // Unless an app is asked for, the apps sending to each OpenPush app come from readiness's
                // one read of `rollup_requests` (``ReadinessRequestRollup/senders``), not another pass here.
                #expect(busiest.contains { $0.contains("DISTINCT target_app") } == (filter.app != nil), "\(filter.summary): \(busiest)")
                if engine == .sqlite {
                    for sql in busiest {
                        let marks = [SQLiteValue](repeating: .null, count: sql.filter { $0 == "?" }.count)
                        let plan = try SQLiteDatabase(path: path).rows("EXPLAIN QUERY PLAN " + sql, marks).compactMap { $0.last?.textValue }
                        #expect(!plan.contains { $0.contains("TEMP B-TREE") && !$0.contains("DISTINCT") }, "\(sql): \(plan)")
                    }
                }
            }
        }
    }

    /// Issue 30, "report over 1,000,000 rows ≤ 2 s": a report reads the findings rollups'
    /// groups once, and the readiness it embeds takes that read (``RolledFindingGroups``) where
    /// it judges exactly the report's rows: the same verdicts as readiness on its own and as the
    /// rows give. A judgement of other rows reads its own: an `--app` report (readiness's app is
    /// a name or a source app id), and an app judged since its current stage began (the report's
    /// window is the whole audit; given the report's groups, its finding counts would be the
    /// whole audit's).
    @Test(arguments: AuditEngine.allCases)
    func theReportsReadinessSharesTheReportsReadOfTheFindingGroups(_ engine: AuditEngine) async throws {
        try await Self.withWrittenAudit(engine) { path, reader in
            let rows = try AuditReader.rowsOnly(path)
            func groupReads(_ filter: ReportFilter) throws -> (Report, [String]) {
                reader.recordedQueries.withLock { $0 = [] }
                let report = try reader.report(filter)
                let queries = reader.recordedQueries.withLock { queries in
                    defer { queries = nil }
                    return queries ?? []
                }
                return (report, queries.filter { $0.contains("sum(judged_requests)") })
            }
            for filter in Self.filters() {
                let (report, reads) = try groupReads(filter)
                let wholeMinutes = RollupWindow(since: filter.since, until: filter.until).minutes != nil
                #expect(reads.count == (wholeMinutes ? (filter.app == nil ? 1 : 2) : 0), "\(filter.summary): \(reads)")
                #expect(report.readiness == (try reader.readiness(filter)), "\(filter.summary)")
                #expect(report.readiness == (try rows.readiness(filter)), "\(filter.summary)")
            }
            // app-03 judged since its stage began, half-way through: fewer judged findings than
            // over the whole audit, as the rows count them.
            let began = SyntheticTraffic.start + SyntheticTraffic.span / 2 + 61_001
            try reader.insertStageChange(StageChange(at: began, app: "app-03", kind: .mode, stage: AppStage(mode: .shadow, legacy: true), previous: nil,
                                                     detail: "", instance: "edge-1", fingerprint: nil))
            let (report, reads) = try groupReads(ReportFilter())
            #expect(reads.count == 2, "\(reads)")
            let judged = try #require(report.readiness.apps.first { $0.app == "app-03" })
            #expect(judged.window.basis == .currentStage)
            let findings = { (app: AppReadiness) in app.routes.reduce(0) { $0 + ($1.warnings + $1.rejections).reduce(0) { $0 + $1.requests } } }
            // (A window given, readiness judges it, not the stage.)
            let overAll = try #require(try rows.readiness(ReportFilter(since: SyntheticTraffic.start - 60_000, app: "app-03")).apps.first { $0.app == "app-03" })
            #expect(findings(judged) > 0 && findings(judged) < findings(overAll), "\(findings(judged)) of \(findings(overAll))")
            #expect(report.readiness == (try rows.readiness()))
            #expect(report == (try reader.oracleReport()))
        }
    }

    /// An audit from before the rollups (the tables and their migration gone) reads its rows,
    /// and the migration that creates them fills them from those rows: the same report.
    @Test func anAuditFromBeforeTheRollupsIsCountedByItsMigration() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await Self.write(store)
            await store.close()
            let before = try AuditReader(path: path).report(Self.filters()[1])
            let database = try SQLiteDatabase(path: path)
            try database.execute("DROP TABLE rollup_requests; DROP TABLE rollup_findings; DELETE FROM pushbridge_migrations WHERE number IN "
                                 + "(\(AuditRollupSchema.sqliteNumber), \(AuditRollupReadinessSchema.sqliteNumber));")
            let old = try AuditReader(path: path)
            #expect(!old.hasRollups)
            #expect(try old.report(Self.filters()[1]) == before)
            await (try AuditStore(path: path)).close()
            let migrated = try AuditReader(path: path)
            #expect(migrated.hasRollups)
            #expect(try migrated.query("SELECT sum(requests) FROM rollup_requests").first?.first?.integerValue == Int64(Self.rows))
            try Self.compare(migrated, path: path, "migrated")
        }
    }

    /// Retention takes the rows it deletes out of the rollups (rows in flight stay).
    @Test func pruningTakesTheDeletedRowsOutOfTheRollups() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await Self.write(store)
            await store.close()
            let reader = try AuditReader(path: path)
            let now = SyntheticTraffic.start + SyntheticTraffic.span / 2 + 30 * 86_400_000
            let pruned = try reader.prune(olderThanDays: 30, now: now)
            #expect(pruned > 0)
            #expect(try reader.report().totalRequests < Self.rows)
            try Self.compare(reader, path: path, "pruned")
        }
    }

    /// A scheduled start's later completion moves its request from `scheduled` to its outcome
    /// in the rollups; a second one, refused (no longer scheduled), moves nothing.
    @Test(arguments: AuditEngine.allCases)
    func aScheduledStartsCompletionMovesItsCount(_ engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await Self.write(store, rows: 60)
            let scheduled = (0..<3).map { SyntheticTraffic.request(1_000 + $0, of: 2_000) }
            for request in scheduled {
                try await store.record(request.entry, AuditCompletion(finishedAt: request.entry.receivedAt + 5, outcome: .scheduled, responseStatus: 202))
            }
            let reader = try AuditReader(path: path)
            #expect(try reader.report().upstream.outcomes.contains(Count("scheduled", 3)))
            let sent = AuditCompletion(finishedAt: SyntheticTraffic.start + 1, outcome: .forwarded, upstreamStatus: 201, upstreamLatencyMs: 8,
                                       attempts: [UpstreamAttempt(startedAt: SyntheticTraffic.start, status: 201, latencyMs: 8)])
            let completing = AuditStatement.completeScheduled(scheduled[0].entry.requestId, sent, onlyWhileScheduled: true, bodyLimit: 4_096)
            try await store.run(completing)
            await #expect(throws: AuditError.self) { try await store.run(completing) }
            let report = try reader.report()
            #expect(report.upstream.outcomes.contains(Count("scheduled", 2)))
            #expect(report == (try reader.oracleReport()))
            await store.close()
        }
    }
}

/// The send count the rollups keep per row: a translated array's elements, counted without parsing it.
@Suite struct RollupSendCountTests {
    @Test(arguments: [
        (#"[{"method":"POST"}]"#, 1), (#"[{"a":[1,2],"b":"x,]"},{"c":{"d":","}},{}]"#, 3), ("[]", 0), (#"[ 1 , "\"]," , null ]"#, 3),
    ] as [(String, Int64)])
    func aTranslatedArrayCountsItsElements(_ text: String, _ count: Int64) throws {
        #expect(AuditRollupRow.sends(translated: text) == count)
        let parsed = try #require(try JSONParser.parse(Array(text.utf8)).arrayValue)
        #expect(Int64(parsed.count) == count)
    }
}
