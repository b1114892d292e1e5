import Foundation
import PushBridgeTestSupport
import Testing
import PushBridgeCore

/// Replays every input in `fuzz/regressions/` (hostile inputs per dialect and inputs that once
/// crashed a libFuzzer target) and
/// every golden fixture body through every route of every dialect: translating never traps, a
/// rejected translation renders a dialect error, a forwardable one renders accepted and failed
/// answers, and every answer PushBridge writes is JSON it can read back.
struct FuzzRegressionTests {
    static let repository = Repository.root

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

    /// A parameterised test over an empty folder would pass having checked nothing.
    @Test func everyDialectHasRegressionInputs() throws {
        let names = Self.inputs
        try #require(!names.isEmpty, "fuzz/regressions/ holds no inputs")
        for dialect in ["onesignal", "pushwoosh", "buzzkit"] {
            #expect(names.contains { $0.hasPrefix("\(dialect)-") }, "no regression input for \(dialect)")
        }
    }

    @Test(arguments: inputs)
    func regressionInputIsHandled(name: String) throws {
        let body = Array(try Data(contentsOf: Self.repository.appendingPathComponent("fuzz/regressions/\(name)")))
        try Self.replay(body)
        try Self.translatesOrRefuses(body, dialectNamed: String(name.prefix { $0 != "-" }))
    }

    /// Through its own dialect's routes an input gives a clear error or at least one request,
    /// never neither.
    static func translatesOrRefuses(_ body: [UInt8], dialectNamed name: String) throws {
        let dialect = try #require(DialectName(rawValue: name), "regression inputs are named <dialect>-<what>.bin")
        let own = paths.filter { InboundRoute.match(path: $0)?.dialect == dialect }
        try #require(!own.isEmpty)
        for path in own {
            let (_, translation) = try #require(Dialects.translate(path: path, body: body, context: TranslationContext(now: 1_781_049_600, requestId: "fuzz")))
            if let error = translation.error {
                #expect(!error.message.isEmpty, "\(path): an error without a message")
            } else {
                #expect(!translation.requests.isEmpty, "\(path): neither an error nor a request")
            }
        }
    }

    @Test func jsonRoundTripOfEveryFixtureBody() throws {
        let root = Self.repository.appendingPathComponent("fixtures")
        var replayed = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path) {
            guard let body = try? Data(contentsOf: root.appendingPathComponent("\(name)/body.json")) else { continue }
            try Self.replay(Array(body))
            replayed += 1
        }
        #expect(replayed > 0, "no fixture body was replayed")
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
