import Foundation
import PushBridgeCore
import Synchronization
import Testing
@testable import PushBridgeServer

/// The legacy doubles inside a running proxy: a `"double"` legacy provider is served by them
/// (the caller gets the double's answer, the double records the request), a reload may move a
/// dialect between a real URL and the double while they run, and a reload naming the double
/// when none was started at start-up is refused with the running configuration kept.
@Suite(.serialized) struct LegacyDoublesLiveTests {
    static let app = "5eb5a37e-b458-11e3-ac11-000c2940e62c"
    static let startPath = "/apps/\(app)/activities/activity/DeliveryAttributes"

    static func configuration(_ dir: URL, legacy: String) throws -> ProxyConfiguration {
        let seed = CLIRunner.repoRoot.appendingPathComponent("config/demo-seed.json").path
        let json = """
            {"listen": "127.0.0.1:0", "audit_db": "\(dir.appendingPathComponent("audit.sqlite").path)",
             "sandbox": {"embedded": true, "seed": "\(seed)", "listen": "127.0.0.1:0"},
             "legacy": {"onesignal": "\(legacy)"}, "legacy_doubles": {"listen": "127.0.0.1:0", "keep": 100},
             "apps": [{"name": "os", "dialect": "onesignal", "source_app_id": "\(app)", "mode": "observe",
                       "openpush": {"app_id": "app_3f9c2b", "rest_key_env": "UNSET_KEY"}, "callers": [{"key_env": "OS_KEY"}]}]}
            """
        return try ProxyConfiguration.load(json: Array(json.utf8), environment: ["OS_KEY": ProxyHarness.oneSignalKey])
    }

    static func start(_ runtime: ProxyRuntime, _ activity: String) async throws -> RawHTTPResponse {
        try await RawHTTPClient.send(port: runtime.port, method: "POST", target: startPath,
                                     headers: [("Authorization", "Key \(ProxyHarness.oneSignalKey)"), ("Content-Type", "application/json")],
                                     body: ReadinessRun.start(activity))
    }

    static func sandboxSends(_ runtime: ProxyRuntime) async throws -> Int {
        let sends = try await RawHTTPClient.send(port: try #require(runtime.sandboxServer?.port), target: "/_sandbox/sends")
        return try JSONParser.parse(sends.body).objectValue?["sends"]?.arrayValue?.count ?? -1
    }

    @Test func anObserveAppWhoseLegacyProviderIsTheDoubleGetsTheDoublesAnswerAndAReloadCanMoveItAndBack() async throws {
        let folder = try TemporaryDirectory("pushbridge-doubles-live")
        let fake = try FakeLegacyProvider(.onesignal)
        let runtime = try ProxyRuntime.start(try Self.configuration(folder.url, legacy: "double"), log: EventLog(sink: { _ in }))
        let doubles = try #require(runtime.legacyDoubles)
        #expect(runtime.snapshots.snapshot.legacy[.onesignal] == doubles.baseURL + "/onesignal")

        let first = try await Self.start(runtime, "double_1")
        #expect(first.status == 201 && first.headers.contains { $0.name.lowercased() == "x-legacy-double" && $0.value == "onesignal" }, "\(first.text)")
        let id = try JSONParser.parse(first.body).objectValue?["notification_id"]?.stringValue ?? ""
        #expect(UUID(uuidString: id) != nil, "the double's id, not the sandbox's: \(first.text)")
        let recorded = doubles.service.requests(provider: .onesignal).compactMap(\.objectValue)
        #expect(recorded.count == 1 && recorded.first?["path"] == .string(Self.startPath) && recorded.first?["status"] == .int(201))
        #expect(recorded.first?["body"]?.objectValue?["activity_id"] == .string("double_1"))
        #expect(recorded.first?["credential"] == .string(Fingerprint.of("Key \(ProxyHarness.oneSignalKey)")))

        // A reload to a real URL sends there; back to "double", the running doubles get it again.
        runtime.reload(try Self.configuration(folder.url, legacy: fake.baseURL))
        #expect(try await Self.start(runtime, "double_2").status == 200)
        #expect(fake.all.count == 1 && doubles.service.requests().count == 1)
        runtime.reload(try Self.configuration(folder.url, legacy: "double"))
        #expect(try await Self.start(runtime, "double_3").status == 201)
        #expect(fake.all.count == 1 && doubles.service.requests().count == 2)
        // Observe sent nothing to OpenPush.
        #expect(try await Self.sandboxSends(runtime) == 0)
        await runtime.stop(gracePeriod: .seconds(1))
        await fake.stop()
    }

    @Test func aReloadNamingTheDoubleWhenNoneWasStartedIsRefusedAndTheRunningProviderStays() async throws {
        let folder = try TemporaryDirectory("pushbridge-doubles-reload")
        let fake = try FakeLegacyProvider(.onesignal)
        let lines = Mutex<[String]>([])
        let runtime = try ProxyRuntime.start(try Self.configuration(folder.url, legacy: fake.baseURL), log: EventLog(sink: { line in lines.withLock { $0.append(line) } }))
        #expect(runtime.legacyDoubles == nil)
        #expect(try await Self.start(runtime, "real_1").status == 200)
        runtime.reload(try Self.configuration(folder.url, legacy: "double"))
        let refused = lines.withLock { $0 }.filter { $0.contains("configuration reload failed") }
        #expect(refused.count == 1 && refused.first?.contains(#"legacy.onesignal: \"double\" needs the legacy doubles"#) == true, "\(refused)")
        // After the refused reload the next request still reaches the provider that was running.
        #expect(try await Self.start(runtime, "real_2").status == 200)
        #expect(fake.all.count == 2 && runtime.snapshots.snapshot.legacy[.onesignal] == fake.baseURL)
        await runtime.stop(gracePeriod: .seconds(1))
        await fake.stop()
    }
}
