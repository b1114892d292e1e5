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

    static let harKey = "har-key-123456"

    /// A HAR of three entries: a OneSignal start that presents `harKey` in `Authorization` and
    /// repeats it in two body fields, an entry without a request and a request without a URL.
    static let harWithSecretsAndUnreadableEntries = {
        let body = #"{"event":"start","activity_id":"a1","name":"\#(harKey)","event_attributes":{"k":"v"},"event_updates":{"s":"\#(harKey)"},"contents":{"en":"Hi"},"included_segments":["s1"]}"#
        let good = JSONValue.object(["request": .object([
            "method": .string("POST"), "url": .string("https://onesignal.com/api/v1/apps/a1/activities/activity/T"),
            "headers": .array([.object(["name": .string("Authorization"), "value": .string("Key \(harKey)")])]),
            "postData": .object(["mimeType": .string("application/json"), "text": .string(body)])])])
        let noRequest = JSONValue.object(["response": .object(["status": .int(200)])])
        let noURL = JSONValue.object(["request": .object(["method": .string("POST")])])
        return JSONWriter.string(.object(["log": .object(["version": .string("1.2"), "entries": .array([good, noRequest, noURL])])]))
    }()

    @Test func replayScrubsTheCapturedCredentialByValueAndNamesUnreadableEntriesWithAFailingStatus() async throws {
        try await withTemporaryDirectory("pushbridge-replay") { dir in
            let har = dir.path("capture.har"), audit = dir.path("audit.sqlite")
            try Self.harWithSecretsAndUnreadableEntries.write(toFile: har, atomically: true, encoding: .utf8)
            let out = try await CLIRunner.runAsync(["replay", har, "--db", audit, "--format", "json"])
            #expect(out.status != 0, "a replay that could not read two of three entries exited 0: \(out.stderr)")
            #expect(out.stderr.contains("log.entries[1]: has no request object"), "\(out.stderr)")
            #expect(out.stderr.contains("log.entries[2]: request.url is missing or not a string"), "\(out.stderr)")
            #expect(out.stderr.contains("2 of 3 entries could not be read"), "\(out.stderr)")
            let report = try #require(try JSONParser.parse(Array(out.stdout.utf8)).objectValue, "no JSON report: \(out.stdout)")
            #expect(report["total_requests"] == .int(1), "the report counts what was replayed: \(out.stdout)")
            let bytes = databaseBytes(audit)
            let inClear = contains(bytes, Self.harKey), fingerprinted = contains(bytes, Fingerprint.of(Self.harKey))
            #expect(!bytes.isEmpty)
            #expect(!inClear, "the captured key is in the replay audit in clear")
            #expect(fingerprinted, "the key's fingerprint is not in the replay audit")
            let rows = try AuditReader(path: audit).list(limit: 5)
            #expect(rows.count == 1 && rows.first?.outcome == "translated", "\(rows.map(\.outcome))")
        }
    }

    @Test func unreadableJSONLinesAreNamedAndTheReadableOnesKept() throws {
        let lines = "{\"path\":\"/x\",\"body\":{}}\nnot json\n\n[1]\n{\"path\":\"/y\"}\n"
        let traffic = try CapturedRequest.read(Array(lines.utf8))
        #expect(traffic.requests.map(\.path) == ["/x", "/y"])
        #expect(traffic.unreadable.map(\.entry) == ["line 2", "line 4"] && traffic.entries == 4)
        #expect(throws: CapturedRequest.ParseError.self) { try CapturedRequest.parse(Array(lines.utf8)) }
    }
}
