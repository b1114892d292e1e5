import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// PostgreSQL text cannot hold U+0000, so NUL follows one rule on both audit engines: a request
/// with a NUL in its path or in a body string or field name is refused as a bad request naming
/// the field before anything is sent, and the audit stores every NUL as `\u0000` (never cut).
@Suite(.serialized) struct NULCharacterTests {
    static let mappedApp = "5eb5a37e-b458-11e3-ac11-000c2940e62c"
    static let buzzKitStart = Array(#"{"to":"alice","event":"st\u0000art","attributesType":"DeliveryAttributes","attributes":{"orderNumber":"1"},"contentState":{"stage":"x"},"alert":{"title":"Hi","body":"There"}}"#.utf8)
    static let oneSignalStart = Array(String(decoding: ProxyPacingLiveTests.startBody("nul_1"), as: UTF8.self)
        .replacingOccurrences(of: #""event":"start","#, with: #""event":"start","x\u0000y":1,"#).utf8)

    /// What one refused request left: its answer and the audit row's texts.
    struct Refused: Equatable {
        var status: Int
        var answer: String
        var sourceApp: String?
        var errorMessage: String?
        var inboundBody: String?
    }

    static func refuse(_ proxy: ProxyHarness, path: String, body: [UInt8], headers: [(String, String)]? = nil) async throws -> Refused {
        let reply = try await proxy.send(path: path, body: body, headers: headers)
        let id = try #require(reply.headers["x-pushbridge-request-id"])
        let record = try #require(try AuditReader(path: proxy.auditPath).show(requestId: id), "no audit row for \(path)")
        #expect(record.outcome == "rejected", "\(path): \(record.outcome)")
        return Refused(status: reply.status, answer: String(decoding: reply.body, as: UTF8.self), sourceApp: record.entry.sourceApp,
                       errorMessage: record.errorMessage, inboundBody: record.entry.inboundBody)
    }

    @Test func aNULInTheBodyOrPathIsRefusedNamingTheFieldAndStoredTheSameOnBothEngines() async throws {
        var seen: [AuditEngine: [Refused]] = [:]
        for engine in AuditEngine.allCases {
            let upstream = try RecordingSandbox()
            let database = engine == .postgresql ? try PostgresTestCluster.start().makeDatabase() : nil
            let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL, auditDatabase: database)
            let event = try await Self.refuse(proxy, path: "/v1/live-activities/send", body: Self.buzzKitStart)
            let field = try await Self.refuse(proxy, path: "/apps/app_3f9c2b/activities/activity/DeliveryAttributes", body: Self.oneSignalStart)
            let path = try await Self.refuse(proxy, path: "/apps/\(Self.mappedApp)%00x/activities/activity/DeliveryAttributes",
                                             body: ProxyPacingLiveTests.startBody("nul_2"), headers: [("Authorization", "Key wrong-key")])
            #expect(upstream.all.isEmpty, "\(engine): a request with a NUL reached OpenPush")

            #expect(event.status == 400 && event.answer.contains("event") && event.answer.contains("U+0000"), "\(engine): \(event.answer)")
            #expect(field.status == 400 && field.answer.contains(#"x\\u0000y"#) && field.answer.contains("U+0000"), "\(engine): \(field.answer)")
            #expect(path.status == 400 && path.answer.contains("path") && path.answer.contains("U+0000"), "\(engine): \(path.answer)")
            #expect(path.sourceApp == "\(Self.mappedApp)\\u0000x", "\(engine): stored under \(path.sourceApp ?? "nil")")
            for refused in [event, field, path] {
                let texts = [refused.sourceApp, refused.errorMessage, refused.inboundBody].compactMap { $0 }
                #expect(!texts.contains { $0.utf8.contains(0) }, "\(engine): a NUL was stored")
                #expect(refused.errorMessage?.contains("U+0000") == true, "\(engine): \(refused.errorMessage ?? "nil")")
            }
            #expect(event.inboundBody?.contains(#"st\u0000art"#) == true, "\(engine): the body was cut: \(event.inboundBody ?? "nil")")
            seen[engine] = [event, field, path]
            await proxy.stop()
        }
        #expect(seen[.sqlite] == seen[.postgresql], "the engines differ")
    }

    @Test(arguments: AuditEngine.allCases) func everyTextTheAuditStoresKeepsItsNULAsAnEscape(engine: AuditEngine) async throws {
        try await withTemporaryAudit(engine) { path in
            let store = try AuditStore(path: path)
            var entry = sampleEntry("NUL1", app: "app\u{0}x")
            entry.findings = [Finding(field: "a\u{0}b", kind: .dropped, message: "dropped a\u{0}b")]
            var completion = sampleCompletion()
            completion.upstreamBody = #"{"id":"n\#u{0}1"}"#
            try await store.record(entry, completion)
            await store.close()
            let record = try #require(try AuditReader(path: path).show(requestId: "NUL1"))
            #expect(record.entry.sourceApp == "app\\u0000x")
            #expect(record.upstreamBody == #"{"id":"n\u00001"}"#)
            #expect(record.entry.findings.map(\.field) == ["a\\u0000b"] && record.entry.findings.first?.message == "dropped a\\u0000b")
        }
    }
}
