import PushBridgeCore
@testable import PushBridgeServer

/// One app of a ``TestConfiguration`` (`apps[i]` of the configuration file).
struct TestApp: Sendable, Editable {
    var name: String
    var dialect: DialectName
    /// `source_app_id`: the id callers send.
    var sourceAppId: String
    /// `openpush.app_id`.
    var openPushAppId = "app_3f9c2b"
    /// `openpush.rest_key_env`; nil leaves it out (a pass-through app, or the embedded
    /// sandbox's key from its seed).
    var restKeyEnv: String? = "OP_KEY"
    /// `callers`.
    var callers: [Caller]
    /// `pass_through_key`.
    var passThroughKey: Bool?
    /// `segment_map`: caller segment name → OpenPush segment id (written in key order).
    var segmentMap: [String: String] = [:]
    /// `unmapped_segments`: `"forward"` or `"reject"`.
    var unmappedSegments: String?
    /// `devices`: `"subscription_ids"` or `"alias:<label>"`.
    var devices: String?
    /// `mode`.
    var mode: MigrationMode?
    /// `route_modes`.
    var routeModes: [RouteKind: MigrationMode] = [:]
    /// `shadow`.
    var shadow: Shadow?
    /// `rollout`.
    var rollout: Rollout?

    /// A caller credential: `key_env` (the variable's name) or `key_sha256`.
    enum Caller: Sendable {
        /// `{"key_env": NAME}`: the secret is in the environment variable NAME.
        case keyEnv(String)
        /// `{"key_sha256": HEX}`: the secret's SHA-256.
        case keySHA256(String)
    }

    /// An app's `shadow` object, each field the key of the same name (`openPushBaseURL` is
    /// `openpush_base_url`: an isolated OpenPush for the shadow, or `"sandbox"`).
    struct Shadow: Sendable {
        var primary: ShadowPrimary?
        var samplePercent: Int?
        var openPushBaseURL: String?
        var openPushAppId: String?
        var restKeyEnv: String?
        var segment: String?
    }

    /// An app's `rollout` object, each field the key of the same name; nil keeps its default.
    struct Rollout: Sendable {
        var percent: Int
        var cohortKey: RolloutSettings.CohortKey?
        var fallbackToLegacy: Bool?
        var segmentStarts: RolloutSettings.SegmentStarts?
    }

    /// The OneSignal app `os` (source app `app_3f9c2b`), caller key `OS_KEY`.
    static var os: TestApp { TestApp(name: "os", dialect: .onesignal, sourceAppId: "app_3f9c2b", callers: [.keyEnv("OS_KEY")]) }
    /// The OneSignal app `os-mapped`: a UUID source app id on the same OpenPush app.
    static var osMapped: TestApp {
        TestApp(name: "os-mapped", dialect: .onesignal, sourceAppId: "5eb5a37e-b458-11e3-ac11-000c2940e62c", callers: [.keyEnv("OS_KEY")])
    }
    /// The Pushwoosh app `pw` (`XXXXX-XXXXX`), caller `auth` `PW_AUTH`.
    static var pw: TestApp { TestApp(name: "pw", dialect: .pushwoosh, sourceAppId: "XXXXX-XXXXX", callers: [.keyEnv("PW_AUTH")]) }
    /// The BuzzKit app `bk`, bearer token `BK_TOKEN`.
    static var bk: TestApp { TestApp(name: "bk", dialect: .buzzkit, sourceAppId: "buzzkit", callers: [.keyEnv("BK_TOKEN")]) }
    /// `os`, `os-mapped`, `pw`, `bk`: what ``ProxyHarness`` serves unless told otherwise.
    static var standard: [TestApp] { [os, osMapped, pw, bk] }
    /// `os`, `pw`, `bk`: one app per dialect.
    static var onePerDialect: [TestApp] { [os, pw, bk] }

    /// The Pushwoosh filter the tests send, mapped to the seed's segment.
    static let pushwooshSegmentMap: [String: String] = ["FILTER_NAME_1": "seg_01hq8n4t2v"]
}
