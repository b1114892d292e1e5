import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Each migration mode through the real proxy, with fake OneSignal and Pushwoosh servers and
/// the sandbox on 127.0.0.1: what each upstream received, what the caller got, what the audit says.
@Suite(.serialized) struct ProxyModesLiveTests {
    static let startPath = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes"
    static let startBody = ProxyPacingLiveTests.startBody("modes_1")
    static let pushwooshBody = Array(#"""
        {"request": {"application": "XXXXX-XXXXX", "auth": "SECRET_API_TOKEN", "notifications": [{
          "content": "Prepared", "title": "Food", "live_activity": {"event": "start", "title": "Order", "content-state": {"status": "Third"},
          "attributes-type": "FoodDeliveryAttributes", "attributes": {}}, "live_activity_id": "SHADOWED", "devices": ["sub_ios_alice"]}]}}
        """#.utf8)

    /// The `legacy` members naming `os` and `pw` (for the older string-fragment harness
    /// initialiser; new tests use ``configuration(_:_:_:osApp:pwApp:)``).
    static func legacy(_ os: FakeLegacyProvider, _ pw: FakeLegacyProvider) -> String {
        #", "legacy": {"onesignal": "\#(os.baseURL)", "pushwoosh": "\#(pw.baseURL)"}"#
    }

    /// The standard apps before `openPush`, `os` and `pw` the OneSignal and Pushwoosh legacy
    /// providers; `osApp` and `pwApp` change apps `os` and `pw` (their mode, their shadow).
    static func configuration(_ openPush: RecordingSandbox, _ os: FakeLegacyProvider, _ pw: FakeLegacyProvider,
                              osApp: (inout TestApp) -> Void = { _ in }, pwApp: (inout TestApp) -> Void = { _ in }) -> TestConfiguration {
        TestConfiguration(upstream: openPush.baseURL).with {
            $0.legacy = [.onesignal: os.baseURL, .pushwoosh: pw.baseURL]
            $0.app("os", osApp)
            $0.app("pw", pwApp)
        }
    }

    static func comparisons(_ auditPath: String) throws -> [[String: SQLiteValue]] {
        let db = try SQLiteDatabase(path: auditPath)
        let columns = ["request_id", "verdict", "primary_provider", "primary_status", "primary_latency_ms", "shadow_provider", "shadow_status", "shadow_error", "differences", "primary_body", "shadow_body"]
        return try db.rows("SELECT \(columns.joined(separator: ", ")) FROM shadow_comparisons ORDER BY compared_at").map { Dictionary(uniqueKeysWithValues: zip(columns, $0)) }
    }

    @Test func observeForwardsTheOriginalByteForByteAndAuditsTheTranslationButSendsNothingToOpenPush() async throws {
        let openPush = try RecordingSandbox()
        let os = try FakeLegacyProvider(.onesignal), pw = try FakeLegacyProvider(.pushwoosh)
        let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(openPush, os, pw, osApp: { $0.mode = .observe }))
        let invalid = Array(String(decoding: Self.startBody, as: UTF8.self).replacingOccurrences(of: "\"event\":\"start\",", with: "\"event\":\"start\",\"priority\":7,").utf8)
        for body in [Self.startBody, invalid] {
            let reply = try await proxy.send(path: Self.startPath, body: body)
            let got = try #require(os.all.last)
            #expect(got.path == Self.startPath && got.body == body, "the legacy provider got something else")
            #expect(got.headers.contains { $0.name.lowercased() == "authorization" && $0.value == "Key \(ProxyHarness.oneSignalKey)" })
            #expect(reply.status == got.response.status && reply.body == got.response.body, "the caller's answer is not the provider's")
            #expect(reply.headers["x-legacy-provider"] == "onesignal")
        }
        #expect(os.all.count == 2 && pw.all.isEmpty && openPush.all.isEmpty, "observe sent to OpenPush")
        let rows = try AuditReader(path: proxy.auditPath).list(limit: 10)
        #expect(rows.count == 2 && rows.allSatisfy { $0.outcome == "translated" })
        let records = try rows.compactMap { try AuditReader(path: proxy.auditPath).show(requestId: $0.requestId) }
        #expect(records.allSatisfy { $0.upstreamStatus == 200 && ($0.errorMessage ?? "").contains("nothing was sent to OpenPush") })
        #expect(records.contains { ($0.errorMessage ?? "").contains("OpenPush would refuse") }, "the invalid translation's finding is missing")
        await proxy.stop()
    }

    @Test func shadowWithLegacyPrimarySendsTheTranslationToTheSandboxAndCompares() async throws {
        let openPush = try RecordingSandbox(), shadowSandbox = try RecordingSandbox()
        let os = try FakeLegacyProvider(.onesignal), pw = try FakeLegacyProvider(.pushwoosh)
        let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(openPush, os, pw, pwApp: {
            $0.mode = .shadow
            $0.shadow = .init(primary: .legacy, openPushBaseURL: shadowSandbox.baseURL)
        }))
        let reply = try await proxy.send(path: "/json/1.3/startLiveActivity", body: Self.pushwooshBody)
        let got = try #require(pw.all.first)
        #expect(got.body == Self.pushwooshBody && reply.status == 200 && reply.body == got.response.body)
        #expect(await eventually { shadowSandbox.all.count == 1 })
        #expect(openPush.all.isEmpty, "the shadow reached the primary's OpenPush")
        let sent = try #require(shadowSandbox.all.first)
        #expect(sent.path == "/apps/app_3f9c2b/activities/activity/FoodDeliveryAttributes" && sent.response.status == 201)
        #expect(await eventually { ((try? Self.comparisons(proxy.auditPath)) ?? []).count == 1 })
        let c = try #require(try Self.comparisons(proxy.auditPath).first)
        #expect(c["verdict"] == .text("both_accepted") && c["primary_provider"] == .text("legacy:pushwoosh") && c["shadow_provider"] == .text("openpush"))
        #expect(c["primary_status"] == .integer(200) && c["shadow_status"] == .integer(201))
        let primaryBody = c["primary_body"]?.textValue ?? ""
        #expect(primaryBody.range(of: ProxyHarness.pushwooshAuth) == nil && primaryBody.contains("Messages"))
        #expect(try AuditReader(path: proxy.auditPath).list(limit: 5).first?.outcome == "forwarded")
        await proxy.stop()
    }

    @Test func shadowWithOpenPushPrimarySendsTheOriginalToTheLegacyProviderAndWarnsAboutTheAudience() async throws {
        let openPush = try RecordingSandbox()
        let os = try FakeLegacyProvider(.onesignal), pw = try FakeLegacyProvider(.pushwoosh)
        let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(openPush, os, pw, osApp: { $0.mode = .shadow; $0.shadow = .init(primary: .openpush) }))
        #expect(proxy.log.lines.contains { $0.contains("SHADOW REACHES THE SAME PHONES") && $0.contains("os") })
        let reply = try await proxy.send(path: Self.startPath, body: Self.startBody)
        #expect(reply.status == 201 && openPush.all.count == 1)
        #expect(await eventually { os.all.count == 1 })
        #expect(os.all.first?.body == Self.startBody)
        #expect(await eventually { ((try? Self.comparisons(proxy.auditPath)) ?? []).count == 1 })
        let c = try #require(try Self.comparisons(proxy.auditPath).first)
        #expect(c["verdict"] == .text("both_accepted") && c["primary_provider"] == .text("openpush") && c["shadow_provider"] == .text("legacy:onesignal"))
        await proxy.stop()
    }

    @Test func aReloadSwitchesModesWithoutARestart() async throws {
        let openPush = try RecordingSandbox()
        let os = try FakeLegacyProvider(.onesignal), pw = try FakeLegacyProvider(.pushwoosh)
        let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(openPush, os, pw, osApp: { $0.mode = .openpush }))
        _ = try await proxy.send(path: Self.startPath, body: ProxyPacingLiveTests.startBody("reload_1"))
        #expect(openPush.all.count == 1 && os.all.isEmpty)
        proxy.runtime.reload(try proxy.configuration.with { $0.app("os") { $0.mode = .observe } }.load())
        _ = try await proxy.send(path: Self.startPath, body: ProxyPacingLiveTests.startBody("reload_2"))
        #expect(openPush.all.count == 1 && os.all.count == 1)
        // A broken file changes nothing.
        let path = proxy.directory.appendingPathComponent("broken.json").path
        try Data("{\"apps\": 1}".utf8).write(to: URL(fileURLWithPath: path))
        #expect(!proxy.runtime.reload(fromFileAt: path, environment: ProxyHarness.environment))
        _ = try await proxy.send(path: Self.startPath, body: ProxyPacingLiveTests.startBody("reload_3"))
        #expect(openPush.all.count == 1 && os.all.count == 2)
        await proxy.stop()
    }

    @Test func anOpenPushShadowCanBeAimedAtAnotherAppAndOneSegment() async throws {
        let openPush = try RecordingSandbox(), shadowSandbox = try RecordingSandbox()
        let os = try FakeLegacyProvider(.onesignal), pw = try FakeLegacyProvider(.pushwoosh)
        let shadow = TestApp.Shadow(primary: .legacy, openPushBaseURL: shadowSandbox.baseURL, openPushAppId: "app_staging", restKeyEnv: "OP_KEY", segment: "seg_testers")
        let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(openPush, os, pw, osApp: { $0.mode = .shadow; $0.shadow = shadow }))
        #expect(!proxy.log.lines.contains { $0.contains("SHADOW REACHES THE SAME PHONES") })
        let reply = try await proxy.send(path: Self.startPath, body: Self.startBody)
        #expect(reply.status == 200 && reply.body == os.all.first?.response.body)
        #expect(await eventually { shadowSandbox.all.count == 1 })
        let sent = try #require(shadowSandbox.all.first)
        #expect(sent.path == "/apps/app_staging/activities/activity/DeliveryAttributes")
        let body = try #require(try JSONParser.parse(sent.body).objectValue)
        #expect(body["included_segments"] == .array([.string("seg_testers")]) && body["include_subscription_ids"] == nil && body["include_aliases"] == nil)
        #expect(openPush.all.isEmpty)
        // The sandbox knows no app_staging: the comparison says only the primary accepted, and why.
        #expect(await eventually { ((try? Self.comparisons(proxy.auditPath)) ?? []).count == 1 })
        let c = try #require(try Self.comparisons(proxy.auditPath).first)
        #expect(sent.response.status >= 400, "the sandbox accepted an unknown app")
        #expect(c["verdict"] == .text("only_primary") && c["shadow_status"] == .integer(Int64(sent.response.status)))
        let differences = c["differences"]?.textValue ?? ""
        #expect(differences.contains("\(sent.response.status)"))
        await proxy.stop()
    }
}
