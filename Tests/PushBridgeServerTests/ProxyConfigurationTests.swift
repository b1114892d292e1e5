import Foundation
import PushBridgeTestSupport
import PushBridgeCore
import Testing
@testable import PushBridgeServer

struct ProxyConfigurationTests {
    static let examplePath = Repository.path("config/pushbridge.example.json")

    static let environment = [
        "OP_KEY_SCORES": "op-secret-scores-1111",
        "ONESIGNAL_KEY_SCORES": "os-secret-scores-2222",
        "OP_KEY_RIDES": "op-secret-rides-3333",
        "PUSHWOOSH_AUTH_RIDES": "pw-secret-rides-4444",
        "PUSHBRIDGE_ADMIN_TOKEN": "admin-secret-5555",
        "OP_KEY_SCORES_STAGING": "op-secret-staging-6666",
    ]

    private func problems(_ json: String, environment: [String: String] = environment) -> [String] {
        do {
            _ = try ProxyConfiguration.load(json: Array(json.utf8), environment: environment)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    /// A valid single-app configuration with `extra` spliced into the app object.
    private func app(_ extra: String = "", callers: String = #"[{"key_env": "ONESIGNAL_KEY_SCORES"}]"#, openpush: String = #""app_id": "a1", "rest_key_env": "OP_KEY_SCORES""#) -> String {
        #"{"openpush": {"base_url": "http://127.0.0.1:9"}, "apps": [{"name": "n", "dialect": "onesignal", "source_app_id": "s", "openpush": {\#(openpush)}, "callers": \#(callers)\#(extra)}]}"#
    }

    @Test func exampleFileLoadsWithEveryKey() throws {
        let config = try ProxyConfiguration.load(fileAt: Self.examplePath, environment: Self.environment)
        #expect(config.listen == .init(host: "0.0.0.0", port: 8080))
        #expect(config.logFormat == .json)
        #expect(config.auditDatabasePath == "/var/lib/pushbridge/audit.sqlite")
        #expect(config.limits == ProxyConfiguration.Limits())
        #expect(config.openPush?.baseURL == "https://api.openpush.example")
        #expect(config.admin?.token.value == "admin-secret-5555")
        #expect(config.admin?.listen.port == 9090)
        #expect(config.apps.map(\.name) == ["scores-ios", "rides", "deliveries"])
        #expect(config.apps.map(\.dialect) == [.onesignal, .pushwoosh, .buzzkit])
        #expect(config.apps[0].openPushKey?.value == "op-secret-scores-1111")
        #expect(config.apps[0].callers.count == 2)
        #expect(config.apps[0].segmentMap == ["Subscribed Users": "seg_subscribed", "Active Users": "seg_active"])
        #expect(config.apps[0].unmappedSegments == .forward)
        #expect(config.apps[1].segmentMap == ["Riders in Berlin": "seg_berlin", "Premium": "seg_premium"])
        #expect(config.apps[1].unmappedSegments == nil)
        #expect(config.apps[1].devices == .alias("external_id"))
        #expect(config.apps[2].passThroughKey)
        #expect(config.apps[2].openPushKey == nil)
        #expect(config.upstreamClientConfiguration.timeout == .milliseconds(10_000))
        #expect(ProxyConfiguration.check(fileAt: Self.examplePath, environment: Self.environment) == [])
    }

    @Test func defaultsApplyWhenKeysAreOmitted() throws {
        let config = try ProxyConfiguration.load(json: Array(app().utf8), environment: Self.environment)
        #expect(config.listen.description == "127.0.0.1:8080")
        #expect(config.logFormat == .logfmt)
        #expect(config.limits.maxBodyBytes == 1_048_576)
        #expect(config.admin == nil)
        #expect(config.apps[0].devices == .subscriptionIds)
        #expect(!config.apps[0].passThroughKey)
    }

    @Test func unknownKeysAreRejectedWithTheirPath() {
        #expect(problems(app(openpush: #""app_id": "a1", "rest_key_env": "OP_KEY_SCORES", "rest_key": "x""#)).contains { $0.hasPrefix("apps[0].openpush.rest_key: unknown key") })
        #expect(problems(#"{"listn": "x"}"#).contains { $0.hasPrefix("listn: unknown key") })
    }

    @Test func missingEnvironmentVariableIsReportedWithPath() {
        var env = Self.environment
        env["OP_KEY_RIDES"] = nil
        let found = ProxyConfiguration.check(fileAt: Self.examplePath, environment: env)
        #expect(found == ["apps[1].openpush.rest_key_env: environment variable OP_KEY_RIDES is not set"])
    }

    @Test func wrongTypesAreReported() {
        let found = problems(#"{"listen": 8080, "limits": {"max_body_bytes": "big"}, "sandbox": {"embedded": "yes"}, "apps": {}}"#)
        #expect(found.contains("listen: expected a string, found number"))
        #expect(found.contains("limits.max_body_bytes: expected an integer, found string"))
        #expect(found.contains("sandbox.embedded: expected a boolean, found string"))
        #expect(found.contains("apps: expected an array, found object"))
        #expect(found.contains("openpush: required unless sandbox.embedded is true"))
        #expect(problems(app(#", "devices": "alias:""#)) == [#"apps[0].devices: must be "subscription_ids" or "alias:<label>""#])
        #expect(problems(app(#", "callers": [{"key_sha256": "abc"}]"#)).first?.contains("duplicate key") == true)
        #expect(problems(app(#", "pass_through_key": true"#, callers: #"[{"key_sha256": "abc"}, {}]"#)) == [
            "apps[0].callers[0].key_sha256: must be a full SHA-256: 64 hex digits",
            "apps[0].callers[1]: exactly one of key_env or key_sha256 is required",
        ])
        #expect(problems("{").first?.hasPrefix("configuration is not valid JSON") == true)
        // A shadow's live reserve cannot exceed the window it is kept in.
        #expect(problems(#"{"delivery": {"sends_per_window": 10, "live_reserve": 11}}"#)
            .contains("delivery.live_reserve: must be an integer from 0 to delivery.sends_per_window (10)"))
        #expect(problems(#"{"delivery": {"shadow_max_wait_ms": 0}}"#).contains { $0.hasPrefix("delivery.shadow_max_wait_ms") })
    }

    @Test func oneSignalAppsMapSegmentsAndChooseWhatAnUnmappedOneDoes() throws {
        let config = try ProxyConfiguration.load(json: Array(app(#", "segment_map": {"Active Users": "seg_active"}, "unmapped_segments": "reject""#).utf8),
                                                 environment: Self.environment)
        let context = config.apps[0].translationContext(now: 1_781_049_600, requestId: "r1")
        #expect(context.segmentMap == ["Active Users": "seg_active"] && context.unmappedSegments == .reject)
        let start = #"{"activity_id":"a","name":"n","event_attributes":{"k":1},"event_updates":{"s":1},"headings":{"en":"h"},"contents":{"en":"c"},"included_segments":["Active Users"%@]}"#
        let route = try #require(InboundRoute.match(path: "/apps/s/activities/activity/T"))
        let mapped = OneSignalDialect().translate(route: route, body: Array(start.replacingOccurrences(of: "%@", with: "").utf8), context: context)
        #expect(mapped.requests.first?.body["included_segments"] == .array([.string("seg_active")]))
        let unmapped = OneSignalDialect().translate(route: route, body: Array(start.replacingOccurrences(of: "%@", with: #","VIP""#).utf8), context: context)
        #expect(unmapped.requests.isEmpty && unmapped.error?.field == "included_segments[1]")

        #expect(problems(app(#", "unmapped_segments": "drop""#)) == [#"apps[0].unmapped_segments: must be "forward" or "reject""#])
        #expect(problems(app(#", "unmapped_segment": "forward""#)).contains { $0.hasPrefix("apps[0].unmapped_segment: unknown key") })
        let buzzkit = app(#", "segment_map": {"A": "seg_a"}"#).replacingOccurrences(of: #""dialect": "onesignal""#, with: #""dialect": "buzzkit""#)
        #expect(problems(buzzkit) == ["apps[0].segment_map: BuzzKit requests target a subscriber, never a segment; remove it"])
    }

    @Test func callerCredentialsMatchInConstantTimeAndMismatch() throws {
        let config = try ProxyConfiguration.load(fileAt: Self.examplePath, environment: Self.environment)
        let credentials = CallerCredentials(apps: config.apps)
        #expect(credentials.apps(presenting: "os-secret-scores-2222").map(\.name) == ["scores-ios"])
        #expect(credentials.apps(presenting: "test").map(\.name) == ["scores-ios"])  // key_sha256 of "test"
        #expect(credentials.apps(presenting: "pw-secret-rides-4444").map(\.name) == ["rides"])
        #expect(credentials.apps(presenting: "op-secret-scores-1111").isEmpty)  // the OpenPush key is not a caller key
        #expect(credentials.apps(presenting: "").isEmpty)
        #expect(credentials.verify("pw-secret-rides-4444", forAppNamed: "rides"))
        #expect(!credentials.verify("pw-secret-rides-4444", forAppNamed: "scores-ios"))
        #expect(!credentials.verify("anything", forAppNamed: "deliveries"))  // pass-through never matches
        #expect(CallerCredential(sha256Hex: String(repeating: "G", count: 64)) == nil)
    }

    @Test func noSecretAppearsInAnyErrorOrDescription() throws {
        let secrets = Self.environment.values + ["sk_live/abc+def="]
        // Errors next to set secrets, and a secret pasted where a variable name belongs.
        let broken = app(#", "pass_through_key": 1"#, openpush: #""app_id": "a1", "rest_key_env": "sk_live/abc+def=""#)
        let found = problems(broken) + ProxyConfiguration.check(fileAt: Self.examplePath, environment: ["OP_KEY_SCORES": "op-secret-scores-1111"])
        #expect(found.contains("apps[0].openpush.rest_key_env: must name an environment variable (letters, digits and _, not starting with a digit)"))
        #expect(found.count > 3)

        let config = try ProxyConfiguration.load(fileAt: Self.examplePath, environment: Self.environment)
        var dumped = ""
        dump(config, to: &dumped)
        let texts = found + [String(describing: config), String(reflecting: config), dumped, config.apps.map { "\($0.callers) \(String(describing: $0.openPushKey))" }.joined()]
        for text in texts {
            for secret in secrets { #expect(!text.contains(secret), "a secret leaked into: \(text.prefix(80))") }
        }
        #expect(String(describing: config.apps[0].openPushKey) == "Optional(secret(\(Fingerprint.of("op-secret-scores-1111"))))")
    }
}
