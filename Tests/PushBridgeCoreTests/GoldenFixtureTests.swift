import Foundation
import PushBridgeTestSupport
import Testing
import PushBridgeCore

/// One folder per case under `fixtures/` (folders without `case.json` are skipped):
/// - `case.json`: `{"path": "/json/1.3/startLiveActivity", "context": {…optional…}}`
///   where context may hold `now` (Unix seconds, default 1781049600 = 2026-06-10T00:00:00Z),
///   `request_id`, `target_app_id`, `source_app_id`, `segment_map` {name: id},
///   `unmapped_segments` ("forward" or "reject"), `devices` ("subscription_ids" or "alias:<label>").
/// - `body.json`: the inbound body exactly as a caller would send it (may be malformed).
/// - `expected.json`: the `pushbridge translate --json` output (requests, schedule, findings, error).
/// `UPDATE_GOLDEN=1 swift test --filter GoldenFixture` rewrites expected files: read every diff.
struct GoldenFixtureTests {
    static let root = Repository.fixtures

    static var cases: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.filter { FileManager.default.fileExists(atPath: root.appendingPathComponent("\($0)/case.json").path) }.sorted()
    }

    @Test func thereAreAtLeastFortyCases() {
        #expect(Self.cases.count >= 40, "fixtures/ has \(Self.cases.count) cases")
    }

    @Test(arguments: cases)
    func translationMatchesGolden(name: String) throws {
        let dir = Self.root.appendingPathComponent(name)
        let spec = try JSONParser.parse(Array(try Data(contentsOf: dir.appendingPathComponent("case.json"))))
        let body = Array(try Data(contentsOf: dir.appendingPathComponent("body.json")))
        let path = try #require(spec.objectValue?["path"]?.stringValue, "case.json needs a path")
        let context = FixtureContext.make(spec.objectValue?["context"]?.objectValue ?? JSONObject())
        let (_, translation) = try #require(Dialects.translate(path: path, body: body, context: context), "no dialect has \(path)")
        let actual = translation.json
        let expectedURL = dir.appendingPathComponent("expected.json")
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try Data((JSONWriter.pretty(actual) + "\n").utf8).write(to: expectedURL)
            return
        }
        let expected = try JSONParser.parse(Array(try Data(contentsOf: expectedURL)))
        #expect(actual == expected, "\(name): got\n\(JSONWriter.pretty(actual))")
        // Every OpenPush request a translation produces must pass OpenPush's own rules.
        for r in translation.requests {
            #expect(r.violations.isEmpty, "\(name): \(r.path) breaks \(r.violations)")
        }
    }
}

/// Builds a `TranslationContext` from a fixture's `context` object.
enum FixtureContext {
    static let defaultNow: Int64 = 1_781_049_600

    static func make(_ o: JSONObject) -> TranslationContext {
        var c = TranslationContext(now: o["now"]?.numberValue?.int64Value ?? defaultNow)
        c.requestId = o["request_id"]?.stringValue
        c.targetAppId = o["target_app_id"]?.stringValue
        c.sourceAppId = o["source_app_id"]?.stringValue
        if let map = o["segment_map"]?.objectValue {
            c.segmentMap = Dictionary(uniqueKeysWithValues: map.members.compactMap { m in m.value.stringValue.map { (m.key, $0) } })
        }
        c.unmappedSegments = o["unmapped_segments"]?.stringValue.flatMap(TranslationContext.UnmappedSegments.init(rawValue:))
        if let d = o["devices"]?.stringValue {
            c.deviceTargetingConfigured = true
            c.deviceTargeting = d.hasPrefix("alias:") ? .alias(String(d.dropFirst(6))) : .subscriptionIds
        }
        return c
    }
}
