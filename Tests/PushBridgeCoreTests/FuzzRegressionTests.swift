import Foundation
import Testing
import PushBridgeCore

/// Replays every input in `fuzz/regressions/` (inputs that once crashed a libFuzzer target) and
/// every golden fixture body through every route of every dialect: translating never traps, a
/// rejected translation renders a dialect error, a forwardable one renders accepted and failed
/// answers, and every answer PushBridge writes is JSON it can read back.
struct FuzzRegressionTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let paths = [
        "/apps/app_3f9c2b/activities/activity/DeliveryAttributes",
        "/apps/app_3f9c2b/live_activities/order_88214/notifications",
        "/json/1.3/startLiveActivity",
        "/json/1.3/updateLiveActivity",
        "/v1/live-activities/send",
    ]

    static var inputs: [String] {
        let dir = repository.appendingPathComponent("fuzz/regressions")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasSuffix(".md") }.sorted()
    }

    @Test(arguments: inputs)
    func regressionInputIsHandled(name: String) throws {
        let body = Array(try Data(contentsOf: Self.repository.appendingPathComponent("fuzz/regressions/\(name)")))
        try Self.replay(body)
    }

    @Test func jsonRoundTripOfEveryFixtureBody() throws {
        let root = Self.repository.appendingPathComponent("fixtures")
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path) {
            guard let body = try? Data(contentsOf: root.appendingPathComponent("\(name)/body.json")) else { continue }
            try Self.replay(Array(body))
        }
    }

    static func replay(_ body: [UInt8]) throws {
        if let value = try? JSONParser.parse(body) {
            #expect(try JSONParser.parse(JSONWriter.bytes(value)) == value)
        }
        let contexts = [
            TranslationContext(now: 1_781_049_600, requestId: "fuzz"),
            TranslationContext(now: 1_781_049_600, targetAppId: "app_target", sourceAppId: "ws_1", segmentMap: ["Active": "seg_1"],
                               deviceTargeting: .alias("external_id"), deviceTargetingConfigured: true),
        ]
        for path in paths {
            for context in contexts {
                let (route, translation) = try #require(Dialects.translate(path: path, body: body, context: context))
                let dialect = Dialects.named(route.dialect)
                var answers: [DialectResponse] = []
                if let error = translation.error {
                    #expect(translation.requests.isEmpty)
                    answers.append(dialect.render(failure: .badRequest(error), route: route))
                } else {
                    for request in translation.requests {
                        let value = JSONValue.object(request.body)
                        #expect(try JSONParser.parse(JSONWriter.bytes(value)) == value)
                    }
                    answers.append(dialect.render(results: translation.requests.map { _ in .accepted(id: "msg_1", replayed: false) }, for: translation))
                    answers.append(dialect.render(results: translation.requests.map { _ in .failed(message: "reset") }, for: translation))
                }
                for answer in answers {
                    #expect((100...599).contains(answer.status))
                    _ = try JSONParser.parse(answer.body)
                }
            }
        }
    }
}
