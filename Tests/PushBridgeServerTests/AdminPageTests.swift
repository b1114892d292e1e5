import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// `GET /admin/` on a real admin listener at 127.0.0.1: behind the token, one self-contained
/// page with every app's stage, activities in flight, reach and both verdicts, every stored
/// value escaped.
@Suite(.serialized) struct AdminPageTests {
    static let token = "admin-page-token"

    /// Fetches `target` from a real listener running `service`.
    static func fetch(_ service: AdminService, _ target: String = "/admin/", token: String? = Self.token, method: String = "GET") async throws -> RawHTTPResponse {
        let server = try HTTPServer(configuration: HTTPServerConfiguration(), handler: service.handler)
        let response = try await RawHTTPClient.send(port: server.port, method: method, target: target,
                                                    headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
        await server.stop(gracePeriod: .seconds(1))
        return response
    }

    @Test func thePageShowsEachRunningAppsStageReachAndVerdictsBehindTheToken() async throws {
        let run = try ReadinessRun(readiness: ReadinessLiveTests.shadowed, shadow: .legacy,
                                   openPushFault: PopulationGapReadinessTests.noToken)
        for i in 0..<3 { try await run.send("fine_\(i)") }
        try await run.send(ReadinessRun.marker + "gap")
        #expect(await run.comparisons(4))
        let configuration = try run.configuration
        let service = AdminService(token: Secret(Self.token), reader: try AuditReader(path: run.proxy.auditPath), readiness: ReadinessSettings(configuration),
                                   snapshots: ProxySnapshotBox(ProxySnapshot(configuration)))
        let missing = try await Self.fetch(service, token: nil), wrong = try await Self.fetch(service, token: "admin-page-tokeN")
        #expect(missing.status == 401 && wrong.status == 401 && !missing.text.contains("<html"))
        let page = try await Self.fetch(service)
        let posted = try await Self.fetch(service, method: "POST")
        await run.stop()
        #expect(posted.status == 405)
        #expect(page.status == 200 && page.header("Content-Type") == "text/html; charset=utf-8", "\(page.status) \(page.text)")
        #expect(page.header("Content-Security-Policy")?.hasPrefix("default-src 'none'") == true)
        let html = page.text
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        for forbidden in ["<script", "<link", "@import", "http://", "https://", "url("] { #expect(!html.contains(forbidden), "\(forbidden)") }
        // One row per running app, in configuration order, with its stage; the ledger is not read yet: "—".
        let row = try #require(html.range(of: "<tr><td class=\"nw\">os<div").map { String(html[$0.lowerBound...].prefix(while: { $0 != "\n" })) })
        #expect(row.hasPrefix("<tr><td class=\"nw\">os<div class=\"dialect\">onesignal</div></td><td class=\"nw\">shadow</td><td class=\"num\">—</td><td>—</td><td class=\"num\">—</td><td class=\"num\">—</td>"), "\(row)")
        #expect(row.contains("<td class=\"nw\">start 75.0%</td>"), "\(row)")
        #expect(row.contains("<span class=\"badge ready\">ready</span>") && row.contains("<span class=\"badge short\">keep legacy</span>"), "\(row)")
        for app in ["os-mapped", "pw", "bk"] { #expect(html.contains("<tr><td class=\"nw\">\(app)<div class=\"dialect\">"), "\(app)") }
        #expect(html.contains("Activities in flight are not known"))
        #expect(html.contains("<h3>Next steps</h3><ol class=\"steps\"><li>os: ready to cut over"), "\(html)")
    }

    /// A rollout app's row says what share of cohorts starts on OpenPush and whether its
    /// rollout was rolled back (read from the audit database every instance shares).
    @Test func aRolloutAppShowsItsPercentAndItsRollbackState() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            await store.close()
            let reader = try AuditReader(path: path)
            #expect(try reader.saveRollback(RolloutRollback(app: "held", at: 1_767_225_600_000, threshold: "max_openpush_error_rate", evidence: "6 of 20 failed")))
            func app(_ name: String, _ mode: MigrationMode, percent: Int?) -> AppConfiguration {
                AppConfiguration(name: name, dialect: .onesignal, sourceAppId: "src-\(name)", openPushAppId: "op-\(name)", openPushKey: Secret("k"),
                                 mode: mode, rollout: percent.map { RolloutSettings(percent: $0) })
            }
            let rollbacks = try reader.rollbacks()
            let held = AdminAppStatus(app("held", .rollout, percent: 25), rollbacks: rollbacks)
            let moving = AdminAppStatus(app("moving", .rollout, percent: 50), rollbacks: rollbacks)
            let plain = AdminAppStatus(app("plain", .openpush, percent: nil), rollbacks: rollbacks)
            let unread = AdminAppStatus(app("unread", .rollout, percent: 5), rollbacks: nil)
            #expect(held.rolloutPercent == 25 && held.rollback == "rolled back at 2026-01-01T00:00:00.000Z (max_openpush_error_rate)", "\(held)")
            #expect(moving.rolloutPercent == 50 && moving.rollback == "active")
            #expect(plain.rolloutPercent == nil && plain.rollback == nil)
            #expect(unread.rolloutPercent == 5 && unread.rollback == nil)
        }
    }

    /// What callers sent (an app name from the audit) is data on the page: HTML escaped,
    /// control characters visible.
    @Test func everyStoredValueIsEscaped() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            let hostile = "<img src=x onerror=alert(1)>\u{1B}[31m&"
            var entry = sampleEntry("E1", findings: 1, app: hostile)
            entry.appName = nil
            try await store.record(entry, sampleCompletion())
            await store.close()
            let page = try await Self.fetch(AdminService(token: Secret(Self.token), reader: try AuditReader(path: path)))
            #expect(page.status == 200)
            #expect(!page.text.contains("<img") && !page.text.contains("\u{1B}"))
            #expect(page.text.contains("&lt;img src=x onerror=alert(1)&gt;\\u{1B}[31m&amp;"), "\(page.text)")
        }
    }
}
