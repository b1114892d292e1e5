import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// The rollout stage's configuration: each bad field named by `check-config`, refused by
/// `serve`, kept out by a reload; the warnings about two activities and split route modes.
@Suite(.serialized) struct RolloutConfigurationTests {
    /// One bad rollout and the line that must name it.
    struct Bad: Sendable, CustomTestStringConvertible {
        var name: String
        var app: String
        var legacy = true
        var line: String
        var testDescription: String { name }
    }

    static let bad: [Bad] = [
        Bad(name: "no legacy URL", app: #", "mode": "rollout", "rollout": {"percent": 5}"#, legacy: false,
            line: "apps[0].rollout: rollout needs legacy.onesignal, the legacy provider's base URL"),
        Bad(name: "percent above 100", app: #", "mode": "rollout", "rollout": {"percent": 101}"#, line: "apps[0].rollout.percent: must be an integer from 0 to 100"),
        Bad(name: "percent below 0", app: #", "mode": "rollout", "rollout": {"percent": -1}"#, line: "apps[0].rollout.percent: must be an integer from 0 to 100"),
        Bad(name: "percent not an integer", app: #", "mode": "rollout", "rollout": {"percent": 12.5}"#, line: "apps[0].rollout.percent: must be an integer from 0 to 100"),
        Bad(name: "percent missing", app: #", "mode": "rollout", "rollout": {"cohort_key": "user"}"#, line: "apps[0].rollout.percent: required: an integer from 0 to 100"),
        Bad(name: "unknown cohort key", app: #", "mode": "rollout", "rollout": {"percent": 5, "cohort_key": "account"}"#,
            line: #"apps[0].rollout.cohort_key: must be one of "audience", "user", "device""#),
        Bad(name: "unknown segment_starts", app: #", "mode": "rollout", "rollout": {"percent": 5, "segment_starts": "all"}"#,
            line: #"apps[0].rollout.segment_starts: must be one of "legacy", "openpush", "both""#),
        Bad(name: "rollout object missing", app: #", "mode": "rollout""#, line: "apps[0].rollout: required when the app or one of its routes is in rollout mode"),
    ]

    let folder: TemporaryDirectory
    init() throws { folder = try TemporaryDirectory("pushbridge-rollout-config") }

    static let environment = ["RC_OP": "op-key", "RC_OS": "os-key"]

    func file(app extra: String, legacy: Bool = true) throws -> String {
        let top = legacy ? #", "legacy": {"onesignal": "http://127.0.0.1:1"}"# : ""
        let text = #"{"listen": "127.0.0.1:0", "audit_db": "\#(folder.url("audit.sqlite").path)", "openpush": {"base_url": "http://127.0.0.1:9"} \#(top), "apps": [{"name": "os", "dialect": "onesignal", "source_app_id": "s", "openpush": {"app_id": "a1", "rest_key_env": "RC_OP"}, "callers": [{"key_env": "RC_OS"}] \#(extra)}]}"#
        let url = folder.url("config-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test(arguments: bad)
    func checkConfigNamesTheFieldAndTheRuleAndServeRefusesToStart(_ bad: Bad) async throws {
        let path = try file(app: bad.app, legacy: bad.legacy)
        let check = try await CLIRunner.runAsync(["check-config", path], environment: Self.environment)
        #expect(check.status == 1)
        #expect(check.stdout.split(separator: "\n").contains { $0.hasPrefix(bad.line) }, "\(check.stdout)")
        let serve = try await CLIRunner.runAsync(["serve", "--config", path], environment: Self.environment)
        #expect(serve.status == 1 && serve.stderr.contains(bad.line), "\(serve.stderr)")
    }

    @Test(arguments: bad)
    func aReloadWithABadRolloutKeepsTheRunningConfigurationAndSaysWhy(_ bad: Bad) async throws {
        let openPush = try RecordingSandbox()
        let os = try FakeLegacyProvider(.onesignal)
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: openPush.baseURL).with {
            $0.legacy[.onesignal] = os.baseURL
            $0.app("os") { $0.mode = .rollout; $0.rollout = .init(percent: 0) }
        })
        // The bad rollout is JSON text: the typed builder cannot spell a bad value.
        let broken = try proxy.configuration.with {
            $0.app("os") { $0.mode = nil; $0.rollout = nil }
            $0.fragments.apps["os"] = try TestConfiguration.Fragments.members(bad.app)
            if !bad.legacy { $0.legacy = [:] }
        }
        #expect(broken.json != proxy.configJSON)
        let path = try broken.write(to: proxy.directory.appendingPathComponent("bad.json").path)
        #expect(!proxy.runtime.reload(fromFileAt: path, environment: ProxyHarness.environment))
        let logged = bad.line.replacingOccurrences(of: "\"", with: "\\\"")
        #expect(proxy.log.lines.contains { $0.contains("configuration reload failed") && $0.contains(logged) }, "\(proxy.log.lines)")
        #expect(proxy.runtime.directory.apps.first { $0.name == "os" }?.rollout == RolloutSettings(percent: 0))
        // The running rollout (0%) still sends the start to the legacy provider.
        let reply = try await proxy.send(path: ProxyModesLiveTests.startPath, body: ProxyPacingLiveTests.startBody("kept_1"))
        #expect(reply.status == 200 && os.all.count == 1 && openPush.all.isEmpty)
        await proxy.stop()
    }

    @Test func aRolloutIsReadWithItsDefaults() throws {
        let c = try ProxyConfiguration.load(fileAt: try file(app: #", "mode": "rollout", "rollout": {"percent": 5}"#), environment: Self.environment)
        #expect(c.apps.first?.mode == .rollout && c.apps.first?.rollout == RolloutSettings(percent: 5, cohortKey: .audience, fallbackToLegacy: true, segmentStarts: .legacy))
        let full = try ProxyConfiguration.load(fileAt: try file(app: #", "mode": "rollout", "rollout": {"percent": 50, "cohort_key": "device", "fallback_to_legacy": false, "segment_starts": "both"}"#),
                                               environment: Self.environment)
        #expect(full.apps.first?.rollout == RolloutSettings(percent: 50, cohortKey: .device, fallbackToLegacy: false, segmentStarts: .both))
    }

    @Test func segmentStartsToBothSidesIsWarnedAboutAtStartAndAtEachReload() async throws {
        let openPush = try RecordingSandbox()
        let os = try FakeLegacyProvider(.onesignal)
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: openPush.baseURL).with {
            $0.legacy[.onesignal] = os.baseURL
            $0.app("os") { $0.mode = .rollout; $0.rollout = .init(percent: 10, segmentStarts: .both) }
        })
        let warning = "ROLLOUT SENDS SEGMENT STARTS TO BOTH SIDES: app os: rollout.segment_starts is \\\"both\\\""
        let warned = { proxy.log.lines.filter { $0.contains("level=warning") && $0.contains(warning) && $0.contains("shows two activities") }.count }
        #expect(warned() == 1, "\(proxy.log.lines)")
        proxy.runtime.reload(try proxy.configuration.load())
        #expect(warned() == 2)
        proxy.runtime.reload(try proxy.configuration.with { $0.app("os") { $0.rollout?.segmentStarts = .legacy } }.load())
        #expect(proxy.log.lines.contains { $0.contains("configuration reloaded") })
        #expect(warned() == 2, "segment_starts legacy warned about two activities")
        await proxy.stop()
    }

    @Test func checkConfigWarnsAboutRouteModesThatSplitStartsFromUpdatesAndSaysAffinityRoutesUpdates() async throws {
        let split = try await CLIRunner.runAsync(["check-config", try file(app: #", "route_modes": {"start": "observe", "update": "openpush"}"#)], environment: Self.environment)
        #expect(split.status == 0)
        let warning = split.stdout.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
        #expect(warning == ["warning: app os: route_modes sends starts to the legacy provider (observe) and updates to OpenPush (openpush); "
            + "affinity routes every update and end of an activity the ledger knows to the provider that accepted its start, so route_modes.update only decides "
            + "where an update of an activity started before PushBridge was in the path goes first"], "\(split.stdout)")
        let agreeing = try await CLIRunner.runAsync(["check-config", try file(app: #", "route_modes": {"start": "observe", "update": "observe"}"#)], environment: Self.environment)
        #expect(agreeing.status == 0 && !agreeing.stdout.contains("warning:"), "\(agreeing.stdout)")
    }
}
