import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// Every golden fixture through the real proxy over HTTP, in front of the sandbox: what reaches
/// OpenPush, what the caller gets, what the audit and the warning log say.
@Suite(.serialized)
struct ProxyFixtureLiveTests {
    static let fixtures = CLIRunner.repoRoot.appendingPathComponent("fixtures")

    static var cases: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? [])
            .filter { FileManager.default.fileExists(atPath: fixtures.appendingPathComponent("\($0)/case.json").path) }.sorted()
    }

    @Test func everyFixtureArrivesAsItsTranslationAndIsAuditedAndLogged() async throws {
        let upstream = try RecordingSandbox()
        // Fixtures are separate callers' requests, several of them the same update to the same
        // activity: the repeat memory (UpdateRepeatLiveTests) would answer those without a send.
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: upstream.baseURL).with { $0.delivery.repeatWindowMs = 0 })
        var checked = (forwarded: 0, rejected: 0)
        for name in Self.cases {
            let dir = Self.fixtures.appendingPathComponent(name)
            let spec = try #require(try JSONParser.parse(Array(try Data(contentsOf: dir.appendingPathComponent("case.json")))).objectValue)
            let body = Array(try Data(contentsOf: dir.appendingPathComponent("body.json")))
            let golden = try #require(try JSONParser.parse(Array(try Data(contentsOf: dir.appendingPathComponent("expected.json")))).objectValue)
            let path = try #require(spec["path"]?.stringValue)
            let route = try #require(InboundRoute.match(path: path))
            let dialect = Dialects.named(route.dialect)
            upstream.reset()
            // Each fixture is its own caller's story: the activity one fixture started (through
            // `os`) is not another's (`os-mapped` starts the same id on the same OpenPush app,
            // which the ledger refuses across source apps), so the ledger starts empty each time.
            try await proxy.runtime.audit.run(AuditStatement(name: "forget the fixtures' activities", sql: "DELETE FROM activities", values: [], requestId: nil))

            let reply = try await proxy.send(path: path, body: body)
            let requestId = try #require(reply.headers["x-pushbridge-request-id"], "\(name): no request id")
            let record = try #require(try AuditReader(path: proxy.auditPath).show(requestId: requestId), "\(name): no audit row")
            #expect(record.responseStatus == reply.status, "\(name): audit status")

            // What the proxy translated, with the app's own context (same request id, same second).
            let app = try #require(proxy.runtime.directory.apps.first { $0.dialect == route.dialect && (route.appId == nil || $0.sourceAppId == route.appId) }, "\(name): no app")
            var translation = dialect.translate(route: route, body: body, context: app.translationContext(now: Int64(Date().timeIntervalSince1970), requestId: requestId))
            translation = IdempotencyKeys.assign(translation, requestId: requestId, sourceApp: app.idempotencyScope)
            if translation.error == nil, translation.schedule != nil, !Self.failsAuthentication(name) {
                // A future send_date: answered at once with PushBridge's ids, held for the scheduler.
                #expect(upstream.all.isEmpty, "\(name): a scheduled start was sent at once")
                #expect(record.outcome == "scheduled", "\(name): outcome \(record.outcome)")
                #expect(reply.status == 200, "\(name): \(reply.status)")
                continue
            }
            let forwardable = translation.error == nil && translation.schedule == nil && !Self.failsAuthentication(name)
            if !forwardable {
                checked.rejected += 1
                #expect(upstream.all.isEmpty, "\(name): a rejected request reached OpenPush")
                #expect(record.outcome == "rejected", "\(name): outcome \(record.outcome)")
                #expect(Self.isDialectError(route.dialect, status: reply.status, body: reply.body), "\(name): \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
                continue
            }
            checked.forwarded += 1
            let exchanges = upstream.all
            #expect(exchanges.count == translation.requests.count, "\(name): \(exchanges.count) upstream requests")
            for (sent, expected) in zip(exchanges, translation.requests) {
                #expect(sent.path == expected.path, "\(name)")
                #expect(try JSONParser.parse(sent.body) == .object(expected.body), "\(name): body differs")
                #expect(sent.headers.contains { $0.name == "authorization" && $0.value == "Key \(RecordingSandbox.restKey)" })
            }
            // Fixtures translated without context must arrive exactly as their golden file says
            // (but for BuzzKit start ids, which the proxy derives from its own request id).
            if spec["context"] == nil, let goldenRequests = golden["requests"]?.arrayValue {
                for (sent, g) in zip(exchanges, goldenRequests) where g.objectValue?["body"]?.objectValue?["activity_id"]?.stringValue?.hasPrefix("bk_") != true {
                    // Every start carries an idempotency key: the caller's scoped to its source app,
                    // or one derived from the request id.
                    var arrived = try #require(try JSONParser.parse(sent.body).objectValue)
                    var goldenBody = g.objectValue?["body"]?.objectValue
                    if let callerKey = goldenBody?["idempotency_key"]?.stringValue {
                        goldenBody?["idempotency_key"] = IdempotencyKeys.scoped(callerKey, sourceApp: app.idempotencyScope).map(JSONValue.string)
                    } else if sent.path.contains("/activities/activity/") {
                        #expect(arrived["idempotency_key"]?.stringValue?.count == 36, "\(name): no derived idempotency key")
                        arrived["idempotency_key"] = nil
                    }
                    #expect(.object(arrived) == goldenBody.map(JSONValue.object), "\(name): differs from the golden translation: \(String(decoding: sent.body, as: UTF8.self))")
                }
            }
            // The caller's answer is its dialect's rendering of what OpenPush said.
            let results = exchanges.map { UpstreamResultMapping.result(.reply(UpstreamReply(status: $0.response.status, headers: $0.response.headers, body: $0.response.body, latency: .zero))) }
            let rendered = dialect.render(results: results, for: translation)
            #expect(reply.status == rendered.status, "\(name)")
            #expect(reply.body == rendered.body, "\(name): \(String(decoding: reply.body, as: UTF8.self))")
            // The audit row and the log carry every finding, each line at the finding's severity.
            #expect(record.outcome == "forwarded", "\(name): outcome \(record.outcome) \(record.errorMessage ?? "")")
            #expect(record.entry.findings.map(\.field) == translation.findings.map(\.field), "\(name): audit findings")
            #expect(record.entry.findings.map(\.kind) == translation.findings.map(\.kind), "\(name): audit finding kinds")
            let findingLines = proxy.log.lines.compactMap(LogfmtParser.parse).filter { line in
                line.contains { $0.key == "request_id" && $0.value == requestId } && line.contains { $0.key == "msg" && $0.value == "translation finding" }
            }
            #expect(findingLines.count == translation.findings.count, "\(name): \(findingLines.count) finding lines")
            for (line, finding) in zip(findingLines, translation.findings) {
                #expect(line.contains { $0.key == "field" && $0.value == finding.field })
                #expect(line.contains { $0.key == "kind" && $0.value == finding.kind.rawValue })
                #expect(line.contains { $0.key == "level" && $0.value == finding.severity.rawValue }, "\(name): \(finding.field) logged at another level")
            }
        }
        #expect(checked.forwarded >= 40)
        #expect(checked.rejected >= 20)
        await proxy.stop()

        // No caller secret survives anywhere the proxy writes.
        var files = [proxy.auditPath, proxy.auditPath + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }
        files.append(Data(proxy.log.output.utf8))
        for secret in [ProxyHarness.oneSignalKey, ProxyHarness.pushwooshAuth, ProxyHarness.buzzkitToken, RecordingSandbox.restKey] {
            for data in files { #expect(data.range(of: Data(secret.utf8)) == nil, "a secret appears in clear text") }
        }
    }

    /// Fixtures whose credentials or app are the broken part: the proxy refuses them before translating.
    static func failsAuthentication(_ name: String) -> Bool {
        guard let body = FileManager.default.contents(atPath: fixtures.appendingPathComponent("\(name)/body.json").path),
              let o = (try? JSONParser.parse(Array(body)))?.objectValue?["request"]?.objectValue else { return false }
        return o["auth"]?.stringValue != ProxyHarness.pushwooshAuth || o["application"]?.stringValue != "XXXXX-XXXXX"
    }

    static func isDialectError(_ dialect: DialectName, status: Int, body: [UInt8]) -> Bool {
        guard let o = (try? JSONParser.parse(body))?.objectValue else { return false }
        switch dialect {
        case .onesignal: return status >= 400 && o["errors"]?.arrayValue?.isEmpty == false
        case .buzzkit: return status >= 400 && o["error"]?.objectValue?["message"]?.stringValue != nil
        case .pushwoosh:
            guard let code = o["status_code"]?.numberValue?.int64Value else { return false }
            return code != 200 && o["status_message"]?.stringValue != nil
        }
    }
}
