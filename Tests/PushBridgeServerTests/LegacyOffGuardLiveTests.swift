import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 29 item 8, the legacy-off guard, on a real proxy over HTTP with the embedded sandbox
/// and the legacy doubles: a reload (and `check-config`) that removes `legacy.onesignal` while
/// an activity it holds is in flight is refused, naming the app, the count, until when and the
/// override; with the override it applies, and the activity's end is answered in the caller's
/// dialect (404, what happened), never 500.
@Suite(.serialized) struct LegacyOffGuardLiveTests {
    static let app = LegacyDoublesLiveTests.app
    static let end = Array(#"{"event":"end","name":"Order","event_updates":{"stage":"delivered"},"contents":{"en":"Delivered"}}"#.utf8)

    static func endPath(_ activity: String) -> String { "/apps/\(app)/live_activities/\(activity)/notifications" }

    /// App `os` moved to `openpush` and `legacy.onesignal` removed; `allow` sets `allow_legacy_removal`.
    static func legacyOff(_ configuration: TestConfiguration, allow: Bool) -> TestConfiguration {
        configuration.with {
            $0.legacy = [:]
            $0.app("os") { $0.mode = .openpush }
            if allow { $0.fragments.top["allow_legacy_removal"] = .bool(true) }
        }
    }

    /// A proxy with app `os` in observe on the OneSignal double, and one activity started there.
    static func withLegacyActivity(_ activity: String) async throws -> ProxyHarness {
        let proxy = try ProxyHarness(.live, configuration: LegacyDoublesLiveTests.configuration(legacy: TestConfiguration.legacyDouble))
        let started = try await LegacyDoublesLiveTests.start(proxy, activity)
        #expect(started.status == 201 && started.headers["x-legacy-double"] == "onesignal")
        return proxy
    }

    static func lines(_ proxy: ProxyHarness, _ text: String) -> [String] { proxy.log.lines.filter { $0.contains(text) } }

    /// Reloads `proxy` with legacy off (`allow`: with the override) and waits for the log line
    /// holding `verdict`; the lines holding it.
    static func reloadLegacyOff(_ proxy: ProxyHarness, allow: Bool, verdict: String) async throws -> [String] {
        proxy.runtime.reload(try legacyOff(proxy.configuration, allow: allow).load())
        #expect(await eventually { !lines(proxy, verdict).isEmpty }, "\(proxy.log.lines)")
        return lines(proxy, verdict)
    }

    @Test(.timeLimit(.minutes(2)))
    func aReloadThatRemovesALegacyProviderStillHoldingAnActivityIsRefusedAndTheActivityStillEndsThere() async throws {
        let proxy = try await Self.withLegacyActivity("held_1")
        let doubles = try #require(proxy.runtime.legacyDoubles)
        let refused = try await Self.reloadLegacyOff(proxy, allow: false, verdict: "configuration reload refused")
        #expect(refused.count == 1, "\(refused)")
        let line = refused.first ?? ""
        #expect(line.contains("legacy.onesignal") && line.contains("app os: 1 in flight until 20") && line.contains("allow_legacy_removal"), "\(line)")
        // The running configuration stayed: the app is still in observe on the double.
        #expect(proxy.runtime.snapshots.snapshot.legacy[.onesignal] != nil && proxy.runtime.directory.apps.first?.mode(for: .start) == .observe)
        #expect(Self.lines(proxy, "configuration reloaded").isEmpty)
        let ended = try await proxy.send(path: Self.endPath("held_1"), body: Self.end)
        #expect(ended.status == 201 && ended.headers["x-legacy-double"] == "onesignal", "\(String(decoding: ended.body, as: UTF8.self))")
        #expect(doubles.service.requests(provider: .onesignal).count == 2)
        await proxy.stop()
    }

    @Test(.timeLimit(.minutes(2)))
    func withTheOverrideTheReloadAppliesAndTheEndOfTheStrandedActivityIsA404InTheDialectNot500() async throws {
        let proxy = try await Self.withLegacyActivity("held_2")
        let doubles = try #require(proxy.runtime.legacyDoubles)
        _ = try await Self.reloadLegacyOff(proxy, allow: true, verdict: "configuration reloaded")
        let warned = Self.lines(proxy, "LEGACY PROVIDER REMOVED WITH ACTIVITIES IN FLIGHT")
        #expect(warned.count == 1 && warned.first?.contains("app os: 1 in flight") == true, "\(proxy.log.lines)")
        #expect(proxy.runtime.snapshots.snapshot.legacy[.onesignal] == nil)

        let ended = try await proxy.send(path: Self.endPath("held_2"), body: Self.end)
        let text = String(decoding: ended.body, as: UTF8.self)
        #expect(ended.status == 404, "\(ended.status): \(text)")
        let errors = try JSONParser.parse(ended.body).objectValue?["errors"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(errors.count == 1 && errors.first?.contains("activity held_2 was started on the legacy provider, and legacy.onesignal has been removed") == true, "\(text)")
        #expect(doubles.service.requests(provider: .onesignal).count == 1, "nothing more reached the legacy side")
        let requestId = try #require(ended.headers["x-pushbridge-request-id"])
        let row = try #require(try AuditReader(path: proxy.auditPath).show(requestId: requestId))
        #expect(row.outcome == "rejected" && row.responseStatus == 404 && (row.errorMessage ?? "").contains("legacy.onesignal has been removed"), "\(row)")
        await proxy.stop()
    }

    @Test(.timeLimit(.minutes(2)))
    func checkConfigRefusesTheFileNamingTheAppCountAndFlagAndTakesItWithTheFlagOrAfterTheEnd() async throws {
        let proxy = try await Self.withLegacyActivity("held_3")
        let folder = try TemporaryDirectory("pushbridge-legacy-off")
        let file = folder.url("legacy-off.json").path
        try Data(Self.legacyOff(proxy.configuration, allow: false).json.utf8).write(to: URL(fileURLWithPath: file))
        let environment = ProcessInfo.processInfo.environment.merging(ProxyHarness.environment) { $1 }

        let refused = try await CLIRunner.runAsync(["check-config", file], environment: environment)
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stdout.contains("legacy.onesignal is not in the configuration") && refused.stdout.contains("app os: 1 in flight until 20")
                && refused.stdout.contains("--allow-legacy-removal") && !refused.stdout.contains(": ok"), "\(refused.stdout)")

        let allowed = try await CLIRunner.runAsync(["check-config", "--allow-legacy-removal", file], environment: environment)
        #expect(allowed.status == 0 && allowed.stdout.contains("\(file): ok") && allowed.stdout.contains("warning: allowed by --allow-legacy-removal"), "\(allowed.stdout)")

        // Drained: the end reached the double, nothing is in flight, the file passes as is.
        #expect(try await proxy.send(path: Self.endPath("held_3"), body: Self.end).status == 201)
        let drained = try await CLIRunner.runAsync(["check-config", file], environment: environment)
        #expect(drained.status == 0 && drained.stdout.contains("legacy can be switched off"), "\(drained.stdout)")
        await proxy.stop()
    }
}
