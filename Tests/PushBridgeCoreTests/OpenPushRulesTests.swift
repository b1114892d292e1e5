import Testing
import PushBridgeCore

struct OpenPushRulesTests {
    static func validStart() -> OpenPushStart {
        var s = OpenPushStart(appId: "app", activityType: "T")
        s.activityId = "order_1"
        s.eventAttributes = ["k": .string("v")]
        s.eventUpdates = ["s": .int(1)]
        s.name = "n"
        s.contents = ["en": .string("c")]
        s.headings = ["en": .string("h")]
        s.includedSegments = ["seg"]
        return s
    }

    @Test func aValidStartBreaksNoRule() {
        #expect(OpenPushRules.validate(Self.validStart()).isEmpty)
    }

    @Test func everyBrokenRuleIsReportedAtOnce() {
        var s = Self.validStart()
        s.activityId = "a/b"
        s.name = String(repeating: "x", count: 129)
        s.priority = 7
        s.relevanceScore = JSONNumber(1.5)
        s.staleDate = 1_781_056_800_000
        s.dismissalDate = 1
        s.idempotencyKey = "nope"
        s.contents = ["en": .string("  ")]
        s.includeAliases = ["external_id": .string("u")]
        s.excludedSegments = ["x"]
        s.includedSegments = nil
        let fields = OpenPushRules.validate(s).map(\.field)
        #expect(fields == ["activity_id", "name", "contents.en", "stale_date", "dismissal_date", "priority", "ios_relevance_score", "idempotency_key", "excluded_segments"])
    }

    @Test func targetingMustBeExactlyOne() {
        var s = Self.validStart()
        s.includedSegments = nil
        #expect(OpenPushRules.validate(s).map(\.field) == ["targeting"])
        s.includedSegments = ["a"]
        s.includeSubscriptionIds = ["b"]
        #expect(OpenPushRules.validate(s).map(\.field) == ["targeting"])
    }

    @Test func targetIdsAreCappedAtTwentyThousand() {
        var s = Self.validStart()
        s.includedSegments = nil
        s.includeSubscriptionIds = (0...20_000).map { "s\($0)" }
        #expect(OpenPushRules.validate(s).contains { $0.rule.contains("20000") })
    }

    @Test func dismissalDateIsForEndOnly() {
        var u = OpenPushUpdate(appId: "a", activityId: "x", event: "update")
        u.eventUpdates = ["s": .int(1)]
        u.name = "n"
        u.dismissalDate = 10
        #expect(OpenPushRules.validate(u).map(\.field) == ["dismissal_date"])
        u.event = "end"
        #expect(OpenPushRules.validate(u).isEmpty)
    }

    @Test(arguments: [
        ("5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1f2", true), ("5F7A2C1E-9B40-4A2D-8C31-6E0B7D94A1F2", true),
        ("5f7a2c1e9b404a2d8c316e0b7d94a1f2", false), ("5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1fz", false), ("", false),
    ])
    func uuids(text: String, valid: Bool) { #expect(OpenPushRules.isUUID(text) == valid) }

    @Test(arguments: [
        (String(repeating: "ab", count: 32), true), (String(repeating: "a", count: 63), false),
        (String(repeating: "ab", count: 257), false), (String(repeating: "zz", count: 32), false),
    ])
    func tokens(text: String, valid: Bool) { #expect(OpenPushRules.isValidToken(text) == valid) }

    @Test func decodingListsIgnoredKeysAndTypeErrors() {
        let body: JSONObject = ["event": .string("start"), "activity_id": .int(5), "subtitle": .string("x")]
        let d = OpenPushStart.decode(appId: "a", activityType: "T", body: body)
        #expect(d.ignoredKeys == ["subtitle"])
        #expect(d.violations.first == RuleViolation(field: "activity_id", rule: "must be a string, got number"))
    }

    @Test func liquidEscapingPrintsBracesLiterally() {
        #expect(LiquidEscaping.escape("plain") == nil)
        #expect(LiquidEscaping.escape("Hi {{name}} {% x %}") == "Hi {{ '{{' }}name}} {{ '{%' }} x %}")
    }

    @Test(arguments: [
        ("2026-09-03T21:00:00.000Z", Int64(1_788_469_200)), ("2026-09-03T23:00:00+02:00", 1_788_469_200),
        ("2026-09-03T21:00:00Z", 1_788_469_200), ("2024-02-29T00:00:00Z", 1_709_164_800),
    ])
    func isoTimestamps(text: String, seconds: Int64) { #expect(TimestampConversion.unixSeconds(iso: text) == seconds) }

    @Test(arguments: ["2026-02-30T00:00:00Z", "2026-09-03 21:00", "2026-09-03T21:00:00", "yesterday", "2026-09-03T21:00:00.Z"])
    func badIsoTimestamps(text: String) { #expect(TimestampConversion.unixSeconds(iso: text) == nil) }
}
