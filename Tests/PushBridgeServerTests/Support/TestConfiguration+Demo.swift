import Foundation
import PushBridgeTestSupport

extension TestConfiguration {
    /// config/demo.json for a test: its apps (``TestApp/demo``) before the embedded sandbox
    /// seeded from config/demo-seed.json, its readiness thresholds, listening on 127.0.0.1:0
    /// with its audit at `audit` (nil: where a harness puts it). `TestConfigurationTests`
    /// checks it against the file.
    static func demo(audit: String?) -> TestConfiguration {
        TestConfiguration(upstream: nil, apps: TestApp.demo).with {
            $0.auditDatabase = audit
            $0.sandbox = .init(seed: Repository.root.appendingPathComponent("config/demo-seed.json").path)
            $0.readiness = .init(minRequests: 3, minShadowed: 0)
        }
    }

    /// The environment the demo reads: the sandbox's OpenPush key.
    static let demoEnvironment = [TestApp.demoKeyEnv: RecordingSandbox.restKey]
}

extension TestApp {
    /// The variable the demo's apps read their OpenPush key from.
    static let demoKeyEnv = "PUSHBRIDGE_DEMO_OPENPUSH_KEY"

    /// config/demo.json's apps: callers known by the SHA-256 of `demo-onesignal-key`,
    /// `demo-pushwoosh-auth` and `demo-buzzkit-token`, as in the demo.
    static var demo: [TestApp] {
        let key = demoKeyEnv
        return [
            TestApp(name: "demo-onesignal", dialect: .onesignal, sourceAppId: "5eb5a37e-b458-11e3-ac11-000c2940e62c", restKeyEnv: key,
                    callers: [.keySHA256("60e859f89e183de7b3dd9c20974a5181aac546a2593cb9b347d6e539a893f9f3")]),
            TestApp(name: "demo-pushwoosh", dialect: .pushwoosh, sourceAppId: "DEMO1-23456", restKeyEnv: key,
                    callers: [.keySHA256("4b0ab267e009c37d596ca7bd558c73929ed27f8890d80bc3ffc48b687c8093ba")], segmentMap: TestApp.pushwooshSegmentMap,
                    devices: "alias:external_id"),
            TestApp(name: "demo-buzzkit", dialect: .buzzkit, sourceAppId: "ws_demo", restKeyEnv: key,
                    callers: [.keySHA256("8c674a3e51b2870c2f9b9d9115ece3c2549f1dce6ac04311b0d30a0f21f8dad4")]),
        ]
    }
}
