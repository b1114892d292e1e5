import Testing
import PushBridgeCore
import PushBridgeServer

struct SandboxStartRulesTests {
    typealias H = SandboxHarness

    /// Each case: the override that breaks a rule of the start table, and the message it gets.
    static let cases: [(String, String?, String)] = [
        ("event", "\"update\"", "event: must be exactly \"start\" on this route"),
        ("activity_id", "\"  \"", "activity_id: is required and must be non-blank"),
        ("activity_id", "\"a/b\"", "activity_id: must not contain /"),
        ("event_attributes", nil, "event_attributes: is required"),
        ("event_attributes", "{}", "event_attributes: must be a non-empty object"),
        ("event_updates", "{}", "event_updates: must be a non-empty object"),
        ("name", "\"\"", "name: is required and must be non-blank"),
        ("name", "\"\(String(repeating: "n", count: 129))\"", "name: must be at most 128 characters"),
        ("contents", "{\"fr\": \"Bonjour\"}", "contents.en: must be present and non-blank"),
        ("headings", nil, "headings: is required and must contain a non-blank en"),
        ("stale_date", "1767225600000", "stale_date: must be Unix seconds; a value ≥ 1e11 is rejected as milliseconds"),
        ("dismissal_date", "1767229200", "dismissal_date: is rejected on a start"),
        ("priority", "7", "priority: must be exactly 5 or 10"),
        ("ios_relevance_score", "1.5", "ios_relevance_score: must be in [0, 1]"),
        ("idempotency_key", "\"not-a-uuid\"", "idempotency_key: must be a UUID"),
        ("included_segments", nil, "targeting: exactly one of include_aliases, include_subscription_ids, included_segments, filters is required"),
        ("include_subscription_ids", "[\"sub_0\"]", "targeting: exactly one of include_aliases, include_subscription_ids, included_segments, filters is allowed"),
        ("event_updates", "\"text\"", "event_updates: must be an object, got string"),
    ]

    @Test(arguments: Transport.all, 0..<cases.count)
    func eachFieldRuleIs400NamingTheField(_ t: Transport, _ i: Int) async throws {
        let (field, value, message) = Self.cases[i]
        let h = try H(t)
        let r = await h.start(H.startBody([field: value]))
        #expect(r.status == 400)
        #expect(r.errors.contains(message), "\(field): \(r.errors)")
        #expect(h.sends.isEmpty)
    }

    @Test(arguments: Transport.all) func excludedSegmentsOnlyAlongsideIncluded(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.start(H.startBody(["included_segments": nil, "include_subscription_ids": "[\"sub_0\"]", "excluded_segments": "[\"x\"]"]))
        #expect(r.status == 400)
        #expect(r.errors == ["excluded_segments: is only valid alongside included_segments"])
    }

    @Test(arguments: Transport.all) func everyBrokenRuleIsListed(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.start(H.startBody(["priority": "3", "name": nil]))
        #expect(Set(r.errors) == ["priority: must be exactly 5 or 10", "name: is required and must be non-blank"])
    }

    @Test(arguments: Transport.all) func malformedJSONIs400(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.start("{\"event\": ")
        #expect(r.status == 400)
        #expect(r.errors.first?.hasPrefix("body: malformed JSON") == true)
    }

    @Test(arguments: Transport.all) func referenceStartIsAccepted(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.start(H.startBody(["idempotency_key": "\"5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1f2\""]))
        #expect(r.status == 201)
        #expect(r.json.keys == ["notification_id"])
        #expect(r.json["notification_id"]?.stringValue?.hasPrefix("msg_") == true)
    }

    @Test(arguments: Transport.all) func unknownKeysAreSilentlyIgnored(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.start(H.startBody(["ios_interruption_level": "\"time-sensitive\"", "apns_push_type_override": "\"alert\"",
                                           "subtitle": "\"x\"", "is_ios": "true", "custom_data": "{\"a\": 1}"]))
        #expect(r.status == 201)
        let text = JSONWriter.string(.object(h.sends[0]))
        for key in ["ios_interruption_level", "interruption", "time-sensitive", "apns_push_type_override", "subtitle", "custom_data"] {
            #expect(!text.contains(key), "\(key) leaked into the recorded send")
        }
    }

    @Test(arguments: Transport.all) func pushToStartCheckIs400WhenNoDeviceHasAToken(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.start(H.startBody(), type: "ScoreAttributes")
        #expect(r.status == 400)
        #expect(r.errors == ["activity_type: no device has registered a push-to-start token for ScoreAttributes in the target audience"])
    }

    @Test(arguments: Transport.all) func pushToStartCheckLooksAtTheAudience(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.start(H.startBody(["included_segments": "[\"seg_empty\"]"]))
        #expect(r.status == 400)
        #expect(r.errors.first?.contains("no device has registered a push-to-start token") == true)
    }

    @Test(arguments: Transport.all) func aliasesAndSubscriptionIdsTarget(_ t: Transport) async throws {
        let h = try H(t, devices: 3)
        let a = await h.start(H.startBody(["included_segments": nil, "include_aliases": "{\"external_id\": [\"user_1\", \"user_2\"]}"]))
        #expect(a.status == 201)
        #expect(h.sends[0]["reached"] == .int(2))
        let s = await h.start(H.startBody(["activity_id": "\"o2\"", "included_segments": nil, "include_subscription_ids": "[\"sub_0\"]"]))
        #expect(s.status == 201)
        #expect(h.sends[1].at("deliveries", 0, "subscription_id") == .string("sub_0"))
    }

    @Test(arguments: Transport.all) func atMostTwentyThousandTargetIds(_ t: Transport) async throws {
        let h = try H(t)
        let ids = (0...20_000).map { "\"s\($0)\"" }.joined(separator: ",")
        let r = await h.start(H.startBody(["included_segments": nil, "include_subscription_ids": "[\(ids)]"]))
        #expect(r.status == 400)
        #expect(r.errors == ["targeting: at most 20000 target ids are accepted per request"])
    }

    @Test(arguments: Transport.all) func filtersAreAcceptedAndTargetTheApp(_ t: Transport) async throws {
        let h = try H(t, devices: 2)
        let r = await h.start(H.startBody(["included_segments": nil, "filters": "[{\"field\": \"tag\", \"key\": \"k\", \"relation\": \"=\", \"value\": \"v\"}]"]))
        #expect(r.status == 201)
        #expect(h.sends[0]["reached"] == .int(2))
    }

    @Test(arguments: Transport.all) func activityTypeComesFromThePath(_ t: Transport) async throws {
        let h = try H(t)
        _ = await h.start(H.startBody(["attributes_type": "\"Other\""]))
        #expect(h.sends[0].at("deliveries", 0, "payload", "aps", "attributes-type") == .string(H.type))
    }
}
