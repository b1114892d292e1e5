import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// `pass_through_key`: the caller's own key is forwarded as the OpenPush key instead of being
/// checked by PushBridge; OpenPush then decides.
@Suite(.serialized)
struct ProxyPassThroughTests {
    /// One BuzzKit app that forwards the caller's own key: no OpenPush key, no callers.
    static let apps = [TestApp(name: "bk", dialect: .buzzkit, sourceAppId: "ws_pass", restKeyEnv: nil, callers: [], passThroughKey: true)]
    static let body = Array(#"{"to":"alice","event":"start","attributesType":"DeliveryAttributes","attributes":{"orderNumber":"1"},"contentState":{"stage":"x"},"alert":{"title":"Hi","body":"There"}}"#.utf8)

    @Test func theCallersKeyIsForwardedAndOpenPushJudgesIt() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: upstream.baseURL, apps: Self.apps))
        let good = try await proxy.send(path: "/v1/live-activities/send", body: Self.body, headers: [("Authorization", "Bearer \(RecordingSandbox.restKey)")])
        #expect(good.status == 200)
        let bad = try await proxy.send(path: "/v1/live-activities/send", body: Self.body, headers: [("Authorization", "Bearer not-the-key")])
        #expect(bad.status == 403, "OpenPush's refusal reaches the caller: \(String(decoding: bad.body, as: UTF8.self))")
        let none = try await proxy.send(path: "/v1/live-activities/send", body: Self.body, headers: [])
        #expect(none.status == 401)
        let keys = upstream.all.map { $0.headers.first { $0.name == "authorization" }?.value }
        #expect(keys == ["Key \(RecordingSandbox.restKey)", "Key not-the-key"], "nothing is forwarded without a key")
        await proxy.stop()
    }
}
