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

    /// App `os` moved to `openpush` and `legacy.onesignal` removed.
    static func legacyOff(_ configuration: TestConfiguration) -> TestConfiguration {
        configuration.with {
            $0.legacy = [:]
            $0.app("os") { $0.mode = .openpush }
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

    @Test(.timeLimit(.minutes(2)))
    func aReloadThatRemovesALegacyProviderStillHoldingAnActivityIsRefusedAndTheActivityStillEndsThere() async throws {
        let proxy = try await Self.withLegacyActivity("held_1")
        let doubles = try #require(proxy.runtime.legacyDoubles)
        proxy.runtime.reload(try Self.legacyOff(proxy.configuration).load())
        #expect(await eventually { !Self.lines(proxy, "configuration reload refused").isEmpty }, "\(proxy.log.lines)")
        let refused = Self.lines(proxy, "configuration reload refused")
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

    /// One dialect's start and end through the demo's apps (observe on the doubles), and how
    /// its answer to the end of an activity whose provider was removed must look.
    struct Dialect: Sendable, CustomTestStringConvertible {
        var app: String
        var start: (path: String, body: String)
        var end: (path: String, body: String)
        var headers: [(String, String)]
        /// The HTTP status and the body's member that carries the message.
        var status: Int
        var message: @Sendable (JSONObject?) -> String?
        var testDescription: String { app }
    }

    static let dialects: [Dialect] = [
        Dialect(app: "demo-onesignal",
                start: ("/apps/\(app)/activities/activity/DeliveryAttributes", String(decoding: ReadinessRun.start("gone_os"), as: UTF8.self)),
                end: (endPath("gone_os"), String(decoding: end, as: UTF8.self)), headers: [("Authorization", "Key demo-onesignal-key")],
                status: 404, message: { $0?["errors"]?.arrayValue?.first?.stringValue }),
        Dialect(app: "demo-pushwoosh",
                start: ("/json/1.3/startLiveActivity", #"{"request":{"application":"DEMO1-23456","auth":"demo-pushwoosh-auth","notifications":[{"content":"c","title":"t","live_activity":{"event":"start","title":"o","content-state":{"status":"x"},"attributes-type":"FoodDeliveryAttributes","attributes":{}},"live_activity_id":"gone_pw","users":["alice"]}]}}"#),
                end: ("/json/1.3/updateLiveActivity", #"{"request":{"application":"DEMO1-23456","auth":"demo-pushwoosh-auth","notifications":[{"live_activity":{"event":"end","content-state":{"status":"Delivered"}},"live_activity_id":"gone_pw"}]}}"#),
                headers: [], status: 200, message: { $0?["status_code"] == .int(210) ? $0?["status_message"]?.stringValue : nil }),
        Dialect(app: "demo-buzzkit",
                start: ("/v1/live-activities/send", #"{"to":"alice","event":"start","activityId":"gone_bk","attributesType":"DeliveryAttributes","attributes":{"orderNumber":"1"},"contentState":{"stage":"x"},"alert":{"title":"Hi","body":"There"}}"#),
                end: ("/v1/live-activities/send", #"{"to":"alice","event":"end","activityId":"gone_bk","contentState":{"stage":"delivered"}}"#),
                headers: [("Authorization", "Bearer demo-buzzkit-token")], status: 404, message: { $0?["error"]?.objectValue?["message"]?.stringValue }),
    ]

    @Test(.timeLimit(.minutes(2)), arguments: dialects)
    func withTheOverrideTheReloadAppliesAndTheEndOfTheStrandedActivityIsAnsweredInTheDialectNot500(_ d: Dialect) async throws {
        let configuration = LegacyDoublesScrubLiveTests.demoOnDoubles
        let proxy = try ProxyHarness(.live, configuration: configuration, environment: TestConfiguration.demoEnvironment)
        let doubles = try #require(proxy.runtime.legacyDoubles)
        let json = [("Content-Type", "application/json")] + d.headers
        let started = try await proxy.send(path: d.start.path, body: Array(d.start.body.utf8), headers: json)
        #expect((200..<300).contains(started.status) && started.headers["x-legacy-double"] != nil, "\(String(decoding: started.body, as: UTF8.self))")
        proxy.runtime.reload(try configuration.with {
            $0.legacy = [:]
            $0.setMode(.openpush)
            $0.fragments.top["allow_legacy_removal"] = .bool(true)
        }.load(environment: TestConfiguration.demoEnvironment))
        #expect(await eventually { !Self.lines(proxy, "configuration reloaded").isEmpty }, "\(proxy.log.lines)")
        let warned = Self.lines(proxy, "LEGACY PROVIDER REMOVED WITH ACTIVITIES IN FLIGHT")
        #expect(warned.count == 1 && warned.first?.contains("app \(d.app): 1 in flight") == true, "\(proxy.log.lines)")

        let received = doubles.service.requests().count
        let ended = try await proxy.send(path: d.end.path, body: Array(d.end.body.utf8), headers: json)
        let text = String(decoding: ended.body, as: UTF8.self)
        let message = d.message(try? JSONParser.parse(ended.body).objectValue) ?? ""
        #expect(ended.status == d.status && message.contains("was started on the legacy provider, and legacy.") && message.contains("has been removed"), "\(ended.status): \(text)")
        #expect(doubles.service.requests().count == received, "nothing more reached the legacy side")
        let requestId = try #require(ended.headers["x-pushbridge-request-id"])
        let row = try #require(try AuditReader(path: proxy.auditPath).show(requestId: requestId))
        #expect(row.outcome == "rejected" && (row.errorMessage ?? "").contains("has been removed"), "\(row)")
        await proxy.stop()
    }

    @Test(.timeLimit(.minutes(2)))
    func checkConfigRefusesTheFileNamingTheAppCountAndFlagAndTakesItWithTheFlagOrAfterTheEnd() async throws {
        let proxy = try await Self.withLegacyActivity("held_3")
        let folder = try TemporaryDirectory("pushbridge-legacy-off")
        let file = folder.url("legacy-off.json").path
        try Data(Self.legacyOff(proxy.configuration).json.utf8).write(to: URL(fileURLWithPath: file))
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
