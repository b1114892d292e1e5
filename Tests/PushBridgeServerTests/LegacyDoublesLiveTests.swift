import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The legacy doubles inside a running proxy: a `"double"` legacy provider is served by them
/// (the caller gets the double's answer, the double records the request), a reload may move a
/// dialect between a real URL and the double while they run, and a reload naming the double
/// when none was started at start-up is refused with the running configuration kept.
@Suite(.serialized) struct LegacyDoublesLiveTests {
    static let app = "5eb5a37e-b458-11e3-ac11-000c2940e62c"
    static let startPath = "/apps/\(app)/activities/activity/DeliveryAttributes"

    /// App `os` in observe mode before the embedded sandbox, its legacy provider `legacy` (a
    /// URL or `"double"`), the doubles on a free port.
    static func configuration(legacy: String) -> TestConfiguration {
        // No OpenPush key in the environment: the embedded sandbox's seed gives it.
        let os = TestApp(name: "os", dialect: .onesignal, sourceAppId: app, restKeyEnv: "UNSET_KEY", callers: [.keyEnv("OS_KEY")], mode: .observe)
        return TestConfiguration.demo(audit: nil).with {
            $0.apps = [os]
            $0.readiness = nil
            $0.legacy[.onesignal] = legacy
            $0.legacyDoubles = .init(listen: "127.0.0.1:0", keep: 100)
        }
    }

    /// `proxy` reloaded with `legacy` as the OneSignal legacy provider.
    static func reload(_ proxy: ProxyHarness, legacy: String) throws {
        proxy.runtime.reload(try proxy.configuration.with { $0.legacy[.onesignal] = legacy }.load())
    }

    static func start(_ proxy: ProxyHarness, _ activity: String) async throws -> ProxyReply {
        try await proxy.send(path: startPath, body: ReadinessRun.start(activity))
    }

    static func sandboxSends(_ runtime: ProxyRuntime) async throws -> Int {
        let sends = try await RawHTTPClient.send(port: try #require(runtime.sandboxServer?.port), target: "/_sandbox/sends")
        return try JSONParser.parse(sends.body).objectValue?["sends"]?.arrayValue?.count ?? -1
    }

    @Test func anObserveAppWhoseLegacyProviderIsTheDoubleGetsTheDoublesAnswerAndAReloadCanMoveItAndBack() async throws {
        let fake = try FakeLegacyProvider(.onesignal)
        let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(legacy: TestConfiguration.legacyDouble))
        let runtime = proxy.runtime
        let doubles = try #require(runtime.legacyDoubles)
        #expect(runtime.snapshots.snapshot.legacy[.onesignal] == doubles.baseURL + "/onesignal")

        let first = try await Self.start(proxy, "double_1")
        let text = String(decoding: first.body, as: UTF8.self)
        #expect(first.status == 201 && first.headers["x-legacy-double"] == "onesignal", "\(text)")
        let id = try JSONParser.parse(first.body).objectValue?["notification_id"]?.stringValue ?? ""
        #expect(UUID(uuidString: id) != nil, "the double's id, not the sandbox's: \(text)")
        let recorded = doubles.service.requests(provider: .onesignal).compactMap(\.objectValue)
        #expect(recorded.count == 1 && recorded.first?["path"] == .string(Self.startPath) && recorded.first?["status"] == .int(201))
        #expect(recorded.first?["body"]?.objectValue?["activity_id"] == .string("double_1"))
        #expect(recorded.first?["credential"] == .string(Fingerprint.of("Key \(ProxyHarness.oneSignalKey)")))

        // A reload to a real URL sends there; back to "double", the running doubles get it again.
        try Self.reload(proxy, legacy: fake.baseURL)
        #expect(try await Self.start(proxy, "double_2").status == 200)
        #expect(fake.all.count == 1 && doubles.service.requests().count == 1)
        try Self.reload(proxy, legacy: TestConfiguration.legacyDouble)
        #expect(try await Self.start(proxy, "double_3").status == 201)
        #expect(fake.all.count == 1 && doubles.service.requests().count == 2)
        // Observe sent nothing to OpenPush.
        #expect(try await Self.sandboxSends(runtime) == 0)
        await proxy.stop()
        await fake.stop()
    }

    @Test func aReloadNamingTheDoubleWhenNoneWasStartedIsRefusedAndTheRunningProviderStays() async throws {
        let fake = try FakeLegacyProvider(.onesignal)
        let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(legacy: fake.baseURL))
        let runtime = proxy.runtime
        #expect(runtime.legacyDoubles == nil)
        #expect(try await Self.start(proxy, "real_1").status == 200)
        try Self.reload(proxy, legacy: TestConfiguration.legacyDouble)
        let refused = proxy.log.lines.filter { $0.contains("configuration reload failed") }
        #expect(refused.count == 1 && refused.first?.contains(#"legacy.onesignal: \"double\" needs the legacy doubles"#) == true, "\(refused)")
        // After the refused reload the next request still reaches the provider that was running.
        #expect(try await Self.start(proxy, "real_2").status == 200)
        #expect(fake.all.count == 2 && runtime.snapshots.snapshot.legacy[.onesignal] == fake.baseURL)
        await proxy.stop()
        await fake.stop()
    }
}
