import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The activities in flight where an operator reads them: `pushbridge activities`, the
/// `/metrics` gauge, `GET /admin/activities`, the admin page, readiness's legacy verdict, and
/// the warning a reload that moves new starts logs. The ledger rows are written by real
/// audit completions (the store's own path), on a real SQLite file or PostgreSQL.
@Suite(.serialized) struct ActivitiesSurfaceTests {
    /// Writes one start row per `(app, id, holder)` with its ledger change, started `ago` ms before now.
    static func start(_ store: AuditStore, app: String, source: String, id: String, holder: ActivityHolder, ago: Int64 = 60_000, ended: Bool = false) async throws {
        let now = AuditClock.nowMilliseconds()
        var entry = sampleEntry("req-\(app)-\(id)", receivedAt: now - ago, findings: 0, app: source)
        entry.appName = app
        var completion = sampleCompletion(finishedAt: now - ago + 5)
        completion.ledger = [.started(ActivityRecord(app: app, activityId: id, dialect: .onesignal, holder: holder, startedAt: now - ago, requestId: entry.requestId))]
        try await store.record(entry, completion)
        if ended {
            var end = sampleEntry("end-\(app)-\(id)", receivedAt: now - ago + 1000, findings: 0, app: source)
            end.appName = app
            var endCompletion = sampleCompletion(finishedAt: now - ago + 1005)
            endCompletion.ledger = [.ended(app: app, activityId: id, at: now - ago + 1000)]
            try await store.record(end, endCompletion)
        }
    }

    /// Three in flight (one an id that is a terminal escape and a formula), one ended, one past its 12 hours.
    static func fill(_ store: AuditStore) async throws {
        try await start(store, app: "rides", source: "app-2", id: "=HYPERLINK(\"x\")\u{1B}[31m", holder: .legacy, ago: 120_000)
        try await start(store, app: "rides", source: "app-2", id: "op-1", holder: .openpush, ago: 60_000)
        try await start(store, app: "scores", source: "app-1", id: "both-1", holder: .both, ago: 30_000)
        try await start(store, app: "rides", source: "app-2", id: "gone", holder: .legacy, ago: 50_000, ended: true)
        try await start(store, app: "rides", source: "app-2", id: "old", holder: .legacy, ago: ActivityRecord.lifetimeMs + 60_000)
    }

    @Test(arguments: AuditEngine.allCases) func theActivitiesCommandListsWhatIsInFlightEscapedInEveryFormat(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            try await Self.fill(store)
            await store.close()
            let text = try await CLIRunner.runAsync(["activities", "--db", path])
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stdout.contains("3 activities in flight") && !text.stdout.contains("gone") && !text.stdout.contains(" old "), "\(text.stdout)")
            #expect(!text.stdout.contains("\u{1B}") && text.stdout.contains("=HYPERLINK(\"x\")\\u{1B}[31m"), "\(text.stdout)")
            let legacy = try await CLIRunner.runAsync(["activities", "--db", path, "--provider", "legacy", "--format", "json"])
            let json = try JSONParser.parse(Array(legacy.stdout.utf8)).objectValue
            let ids = (json?["activities"]?.arrayValue ?? []).compactMap { $0.objectValue?["activity_id"]?.stringValue }
            #expect(legacy.status == 0 && Set(ids) == ["=HYPERLINK(\"x\")\u{1B}[31m", "both-1"], "\(legacy.stdout)")
            let csv = try await CLIRunner.runAsync(["activities", "--db", path, "--app", "rides", "--format", "csv"])
            let lines = csv.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == ActivityListing.columns.joined(separator: ","))
            #expect(lines.count == 3 && lines.contains { $0.hasPrefix("\"'=HYPERLINK(\"\"x\"\")\\u{1B}[31m\",rides,legacy,onesignal,") }, "\(csv.stdout)")
            let bad = try await CLIRunner.runAsync(["activities", "--db", path, "--provider", "both"])
            #expect(bad.status == 2)
        }
    }

    @Test func metricsTheAdminListAndPageAndReadinessReadTheLedger() async throws {
        let sandbox = try RecordingSandbox()
        let proxy = try ProxyHarness(.inProcess, upstream: sandbox.baseURL)
        try await Self.fill(proxy.runtime.audit)
        let body = try await proxy.get("/metrics").2
        let samples = try #require(PrometheusTextParser.parse(String(decoding: body, as: UTF8.self)))
        let gauge = { (app: String, provider: String) in
            samples.first { $0.name == "pushbridge_activities_in_flight" && $0.labels == ["app": app, "provider": provider] }?.value
        }
        #expect(gauge("rides", "legacy") == "1" && gauge("rides", "openpush") == "1" && gauge("scores", "both") == "1", "\(samples.filter { $0.name.contains("activities") })")
        #expect(gauge("os", "openpush") == "0" && gauge("os", "legacy") == "0")

        let service = AdminService(token: Secret("t"), reader: try AuditReader(path: proxy.auditPath), ledger: proxy.runtime.audit.activities,
                                   snapshots: proxy.runtime.snapshots)
        let list = await service.respond(HTTPRequest(method: "GET", target: "/admin/activities?app=rides&provider=legacy", headers: [("Authorization", "Bearer t")]))
        #expect(list.status == 200 && list.headers.contains { $0.name == "Content-Type" && $0.value == "application/json" })
        let ids = (try JSONParser.parse(list.body).objectValue?["activities"]?.arrayValue ?? []).compactMap { $0.objectValue?["activity_id"]?.stringValue }
        #expect(ids == ["=HYPERLINK(\"x\")\u{1B}[31m"], "\(ids)")
        let refused = await service.respond(HTTPRequest(method: "GET", target: "/admin/activities", headers: []))
        #expect(refused.status == 401)
        let badProvider = await service.respond(HTTPRequest(method: "GET", target: "/admin/activities?provider=x", headers: [("Authorization", "Bearer t")]))
        #expect(badProvider.status == 400)

        let page = String(decoding: (await service.respond(HTTPRequest(method: "GET", target: "/admin/", headers: [("Authorization", "Bearer t")]))).body, as: UTF8.self)
        #expect(!page.contains("Activities in flight are not known"))
        let settings = ReadinessSettings(apps: [.init(name: "rides", dialect: "onesignal", sourceAppId: "app-2")])
        let counts = try await proxy.runtime.audit.activities.inFlightCounts(now: AuditClock.nowMilliseconds())
        let rides = try #require(try AuditReader(path: proxy.auditPath).readiness(ReportFilter(app: "rides"), settings: settings, inFlight: counts).apps.first)
        #expect(rides.legacyInFlight == 1 && rides.legacy.verdict == .notYet)
        #expect(rides.legacy.reasons.contains { $0.hasPrefix("1 activity in flight on the legacy side; the last can be updated until ") }, "\(rides.legacy.reasons)")
        await proxy.stop()
    }

    @Test func aReloadThatMovesNewStartsLogsWhatIsInFlightOnEachSide() async throws {
        let sandbox = try RecordingSandbox()
        let legacy = try FakeLegacyProvider(.onesignal)
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: sandbox.baseURL).with {
            $0.legacy[.onesignal] = legacy.baseURL
            $0.app("os") { $0.mode = .observe }
        })
        let now = AuditClock.nowMilliseconds()
        try await Self.start(proxy.runtime.audit, app: "os", source: "app_3f9c2b", id: "legacy-1", holder: .legacy, ago: 60_000)
        try await Self.start(proxy.runtime.audit, app: "os", source: "app_3f9c2b", id: "legacy-2", holder: .legacy, ago: 30_000)
        // A reload that changes nothing about where starts go says nothing.
        let reloaded = { (mode: MigrationMode) in try proxy.configuration.with { $0.app("os") { $0.mode = mode } }.load() }
        proxy.runtime.reload(try reloaded(.observe))
        proxy.runtime.reload(try reloaded(.openpush))
        let line = "new starts now go elsewhere; activities in flight stay with the provider that holds them"
        #expect(await eventually { proxy.log.lines.contains { $0.contains(line) } })
        let logged = proxy.log.lines.filter { $0.contains(line) }
        #expect(logged.count == 1, "\(logged)")
        let pairs = try #require(logged.first.flatMap(LogfmtParser.parse))
        let fields = Dictionary(pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(fields["app"] == "os" && fields["starts_were"] == "legacy" && fields["starts_now"] == "openpush", "\(fields)")
        #expect(fields["in_flight_legacy"] == "2" && fields["in_flight_openpush"] == "0" && fields["openpush_last_update_until"] == "none")
        let until = try #require(fields["legacy_last_update_until"].flatMap(ReportFilter.parseTime))
        #expect(abs(until - (now - 30_000 + ActivityRecord.lifetimeMs)) < 5_000, "\(fields)")
        await proxy.stop()
        await legacy.stop()
    }
}
