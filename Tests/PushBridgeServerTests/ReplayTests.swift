import Foundation
import PushBridgeTestSupport
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Replays every fixture's request (JSON lines built from fixtures/*/case.json + body.json)
/// and checks the report names every dropped field the fixtures' expected.json files contain.
struct ReplayTests {
    static let fixtures = Repository.fixtures

    struct Fixture {
        var line: String
        var dialect: String
        var dropped: Set<String>
        var hasContext: Bool
    }

    static func load() throws -> [Fixture] {
        let names = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).sorted()
        return try names.compactMap { name -> Fixture? in
            let dir = fixtures.appendingPathComponent(name)
            guard let spec = try? JSONParser.parse(Array(try Data(contentsOf: dir.appendingPathComponent("case.json")))).objectValue,
                  let path = spec["path"]?.stringValue else { return nil }
            let body = String(decoding: try Data(contentsOf: dir.appendingPathComponent("body.json")), as: UTF8.self)
            let expected = try JSONParser.parse(Array(try Data(contentsOf: dir.appendingPathComponent("expected.json"))))
            let dropped = (expected.objectValue?["findings"]?.arrayValue ?? []).compactMap { f -> String? in
                guard let o = f.objectValue, o["kind"]?.stringValue == "dropped" else { return nil }
                return o["field"]?.stringValue.map(FieldPath.folded)
            }
            let line = JSONWriter.string(.object(["method": .string("POST"), "path": .string(path), "headers": .object([:]), "body": .string(body)]))
            return Fixture(line: line, dialect: InboundRoute.match(path: path)?.dialect.rawValue ?? "", dropped: Set(dropped), hasContext: spec["context"] != nil)
        }
    }

    @Test func replayOfTheFixturesReportsEveryDroppedField() async throws {
        let fixtures = try Self.load()
        #expect(fixtures.count >= 40)
        let requests = try CapturedRequest.parse(Array(fixtures.map(\.line).joined(separator: "\n").utf8))
        #expect(requests.count == fixtures.count)
        try await withTemporaryAudit { path in
            try await Replay.run(requests, auditPath: path)
            let report = try AuditReader(path: path).report()
            #expect(report.totalRequests == fixtures.count)
            var reported: [String: Int] = [:]
            for g in report.dropped { reported["\(g.dialect) \(g.field)", default: 0] += g.requests }
            var expected: [String: Int] = [:]
            for f in fixtures { for field in f.dropped { expected["\(f.dialect) \(field)", default: 0] += 1 } }
            #expect(!expected.isEmpty)
            for (key, count) in expected { #expect(reported[key] == count, "\(key): expected \(count) requests, report has \(reported[key] ?? 0)") }
            #expect(Set(reported.keys) == Set(expected.keys))
        }
    }

    @Test func harFilesAreRead() throws {
        let har = #"{"log":{"version":"1.2","entries":[{"request":{"method":"POST","url":"https://onesignal.com/api/v1/apps/a1/activities/activity/T?x=1","headers":[{"name":"Authorization","value":"Key k"}],"postData":{"mimeType":"application/json","text":"{\"event\":\"start\"}"}}}]}}"#
        let requests = try CapturedRequest.parse(Array(har.utf8))
        #expect(requests == [CapturedRequest(method: "POST", path: "/api/v1/apps/a1/activities/activity/T?x=1", headers: [(name: "authorization", value: "Key k")],
                                             body: Array(#"{"event":"start"}"#.utf8))])
        let lines = "{\"path\":\"/x\",\"body\":{\"a\":1}}\n\n{\"method\":\"PUT\",\"path\":\"/y\",\"body\":\"raw\"}\n"
        #expect(try CapturedRequest.parse(Array(lines.utf8)).map { String(decoding: $0.body, as: UTF8.self) } == [#"{"a":1}"#, "raw"])
    }
}
