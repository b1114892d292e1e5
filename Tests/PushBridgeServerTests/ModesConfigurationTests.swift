import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// The modes' configuration keys: modes, route overrides, shadows, legacy URLs, delivery.
struct ModesConfigurationTests {
    static let environment = ["OP": "op-key", "OS": "os-key", "STAGING": "staging-key"]

    static func load(app extra: String, top: String = #", "legacy": {"onesignal": "http://127.0.0.1:1"}"#) -> Result<ProxyConfiguration, ConfigurationError> {
        let json = #"{"openpush": {"base_url": "http://127.0.0.1:9"} \#(top), "apps": [{"name": "n", "dialect": "onesignal", "source_app_id": "s", "openpush": {"app_id": "a1", "rest_key_env": "OP"}, "callers": [{"key_env": "OS"}] \#(extra)}]}"#
        do {
            return .success(try ProxyConfiguration.load(json: Array(json.utf8), environment: environment))
        } catch {
            return .failure(error)
        }
    }

    static func problems(app extra: String, top: String = #", "legacy": {"onesignal": "http://127.0.0.1:1"}"#) -> [String] {
        if case .failure(let e) = load(app: extra, top: top) { return e.problems.map(\.description) }
        return []
    }

    @Test func modesRouteOverridesAndShadowAreRead() throws {
        let c = try Self.load(app: #", "mode": "shadow", "route_modes": {"update": "observe"}, "shadow": {"primary": "legacy", "sample_percent": 10, "openpush_app_id": "a2", "rest_key_env": "STAGING", "segment": "seg_t"}"#).get()
        let app = try #require(c.apps.first)
        #expect(app.mode(for: .start) == .shadow && app.mode(for: .update) == .observe)
        #expect(app.shadow == ShadowSettings(primary: .legacy, samplePercent: 10, openPushAppId: "a2", openPushKey: Secret("staging-key"), segment: "seg_t"))
        #expect(app.sameAudienceWarning == nil)
        #expect(c.legacy[.onesignal] == "http://127.0.0.1:1")
    }

    @Test func theDefaultIsOpenPushAndDeliveryDefaultsAreOpenPushsLimits() throws {
        let c = try Self.load(app: "").get()
        #expect(c.apps.first?.mode(for: .start) == .openpush)
        #expect(c.delivery.sendsPerWindow == 60 && c.delivery.windowMs == 60_000 && c.delivery.maxAttempts == 3)
        #expect(c.schedulerDatabasePath == "pushbridge-audit-scheduled.sqlite")
    }

    @Test func aShadowToTheSameAudienceIsFlagged() throws {
        let same = try Self.load(app: #", "mode": "shadow", "shadow": {"primary": "legacy"}"#).get()
        #expect(same.apps.first?.sameAudienceWarning?.contains("same phones") == true)
        let reverse = try Self.load(app: #", "mode": "shadow", "shadow": {"primary": "openpush", "segment": "x"}"#).get()
        #expect(reverse.apps.first?.sameAudienceWarning != nil)
    }

    @Test func mistakesAreReportedWithTheirPaths() {
        #expect(Self.problems(app: #", "mode": "mirror""#).contains { $0.contains("apps[0].mode") })
        #expect(Self.problems(app: #", "mode": "observe""#, top: "").contains { $0.contains("legacy.onesignal") })
        #expect(Self.problems(app: #", "mode": "shadow""#).contains { $0.contains("apps[0].shadow") })
        #expect(Self.problems(app: #", "shadow": {"sample_percent": 101}"#).contains { $0.contains("sample_percent") })
        #expect(Self.problems(app: #", "shadow": {"openpush_app_id": "x"}"#).contains { $0.contains("rest_key_env") })
        #expect(Self.problems(app: #", "shadow": {"openpush_base_url": "sandbox"}"#).contains { $0.contains("sandbox.embedded") })
        #expect(Self.problems(app: #", "route_modes": {"delete": "observe"}"#).contains { $0.contains("unknown key") })
        #expect(Self.problems(app: "", top: #", "delivery": {"rate": 1}"#).contains { $0.contains("delivery.rate") })
        #expect(Self.problems(app: "", top: #", "delivery": {"backoff_base_ms": 5000}"#).contains { $0.contains("backoff_base_ms") })
        #expect(Self.problems(app: "", top: #", "shadow_queue": {"limit": 0}"#).contains { $0.contains("shadow_queue.limit") })
    }
}
