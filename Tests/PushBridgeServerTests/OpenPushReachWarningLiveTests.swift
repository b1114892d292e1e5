import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 29 item 10: moving an app to `openpush` while OpenPush's reach is below
/// `readiness.min_reach` is warned, naming the reach, by a reload (logged) and by
/// `check-config`. Real proxy over HTTP before the sandbox, which knows alice but not carol
/// (still on the old app), and a recording legacy provider.
@Suite(.serialized) struct OpenPushReachWarningLiveTests {
    @Test(.timeLimit(.minutes(2)))
    func aReloadAndCheckConfigWarnOfAnAppMovedToOpenPushWithHalfItsPhonesUnreached() async throws {
        let openPush = try RecordingSandbox(), legacy = try FakeLegacyProvider(.onesignal)
        let proxy = try ProxyHarness(.live, configuration: RolloutStartFallbackLiveTests.configuration(openPush, legacy))
        let path = RolloutStartFallbackLiveTests.path
        #expect(try await proxy.send(path: path, body: RolloutStartFallbackLiveTests.start("alice", "reach_1")).status == 201)
        // carol's start is a population gap that falls back: reach 1 of 2.
        #expect(try await proxy.send(path: path, body: RolloutStartFallbackLiveTests.start("carol", "reach_2")).status == 200)
        let openpush = proxy.configuration.with { $0.app("os") { $0.mode = .openpush; $0.rollout = nil } }
        proxy.runtime.reload(try openpush.load())
        #expect(await eventually { proxy.log.lines.contains { $0.contains("OPENPUSH REACH BELOW readiness.min_reach") } }, "\(proxy.log.lines)")
        let warned = proxy.log.lines.filter { $0.contains("OPENPUSH REACH BELOW readiness.min_reach") }
        #expect(warned.count == 1 && warned.first?.contains("app os: mode openpush while OpenPush's reach is 50") == true, "\(warned)")
        // Judged over the rollout it leaves, not its new (empty) openpush stage, and it says so.
        #expect(warned.first?.contains("% in the stage it leaves, rollout") == true, "\(warned)")

        let folder = try TemporaryDirectory("pushbridge-reach")
        let file = folder.url("openpush.json").path
        try Data(openpush.json.utf8).write(to: URL(fileURLWithPath: file))
        let checked = try await CLIRunner.runAsync(["check-config", file], environment: ProcessInfo.processInfo.environment.merging(ProxyHarness.environment) { $1 })
        #expect(checked.status == 0 && checked.stdout.contains("warning: app os: mode openpush while OpenPush's reach is 50")
                && checked.stdout.contains("fallback_to_legacy") && checked.stdout.contains("in the stage it leaves, rollout"), "\(checked.stdout)")
        await proxy.stop()
        await legacy.stop()
    }
}
