import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// Redaction by value and by key name in any spelling: no credential (caller keys, the
/// Pushwoosh auth, the OpenPush REST key) and no device token reaches the caller's answer, a
/// log line or any byte of the audit file, wherever the request (or the upstream) put it; and a
/// request refused before authentication leaves only a bounded excerpt in the audit.
@Suite(.serialized)
struct SecretsByValueLiveTests {
    static let tokenA = String(repeating: "a1b2c3d4", count: 8)
    static let tokenB = String(repeating: "9f8e7d6c", count: 8)
    static let secrets = [ProxyHarness.oneSignalKey, ProxyHarness.pushwooshAuth, ProxyHarness.buzzkitToken, RecordingSandbox.restKey,
                          tokenA, tokenB, "tok_push_ABCDEFG", "apikey_HIJKLMN", "pt_OPQRSTU", "dt_VWXYZ12"]
    static let osStart = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes"
    static let bkSend = "/v1/live-activities/send"

    static func oneSignalStart(name: String, extra: JSONObject = [:]) throws -> [UInt8] {
        var o = try #require(try JSONParser.parse(ProxyFailureTests.fixture("onesignal-start-reference")).objectValue)
        o["name"] = .string(name)
        o["contents"] = .object(["en": .string("your key is \(ProxyHarness.oneSignalKey)")])
        for m in extra.members { o[m.key] = m.value }
        return JSONWriter.bytes(.object(o))
    }

    /// Every file of the audit (database and WAL) as bytes.
    static func auditBytes(_ proxy: ProxyHarness) throws -> [UInt8] {
        let files = try FileManager.default.contentsOfDirectory(atPath: proxy.directory.path).filter { $0.hasPrefix("audit.sqlite") }
        return try files.flatMap { Array(try Data(contentsOf: proxy.directory.appendingPathComponent($0))) }
    }

    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        guard n.count <= haystack.count else { return false }
        return haystack.withUnsafeBufferPointer { h in
            n.withUnsafeBufferPointer { p in
                (0...(h.count - p.count)).contains { i in h[i] == p[0] && memcmp(h.baseAddress! + i, p.baseAddress!, p.count) == 0 }
            }
        }
    }

    @Test func noSecretLeavesInClearWhereverItWasPut() async throws {
        let upstream = try RecordingSandbox(behaviour: { request in
            // An upstream that echoes the REST key it was sent.
            guard request.path.contains("/live_activities/echo_key/") else { return nil }
            return .json(400, .object(["errors": .array([.string("key \(RecordingSandbox.restKey) may not update echo_key")])]))
        })
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL)
        let requests: [(String, [UInt8], [(String, String)]?)] = [
            // The caller's key repeated in name and contents; tokens and keys under camelCase, kebab-case and snake_case names.
            (Self.osStart, try Self.oneSignalStart(name: "order for \(ProxyHarness.oneSignalKey)", extra: [
                "deviceToken": .string(Self.tokenA), "pushToken": .string("tok_push_ABCDEFG"), "apiKey": .string("apikey_HIJKLMN"),
                "Push-Token": .string("pt_OPQRSTU"), "device_token": .string("dt_VWXYZ12")]), nil),
            // A BuzzKit event holding the bearer token, then a device token: echoed into the error by the dialect.
            (Self.bkSend, Array(#"{"to":"alice","event":"\#(ProxyHarness.buzzkitToken)","activityId":"m_1","contentState":{"s":1}}"#.utf8), nil),
            (Self.bkSend, Array(#"{"to":"alice","event":"\#(Self.tokenB)","activityId":"m_1","contentState":{"s":1}}"#.utf8), nil),
            // BuzzKit alert text holding the bearer token, on a start that goes through.
            (Self.bkSend, Array(#"{"to":"alice","event":"start","attributesType":"DeliveryAttributes","attributes":{"o":"1"},"contentState":{"s":"x"},"alert":{"title":"t \#(ProxyHarness.buzzkitToken)","body":"b"}}"#.utf8), nil),
            // The upstream echoes the REST key in its error.
            ("/apps/app_3f9c2b/live_activities/echo_key/notifications", Array(try ProxyFailureTests.fixture("onesignal-update-reference")), nil),
        ]
        var answers: [String] = []
        var ids: [String] = []
        for (path, body, headers) in requests {
            let reply = try await proxy.send(path: path, body: body, headers: headers)
            let id = reply.headers["x-pushbridge-request-id"]
            #expect(id != nil)
            ids += id.map { [$0] } ?? []
            answers.append(String(decoding: reply.body, as: UTF8.self))
        }
        #expect(answers[1].contains("event"), "the BuzzKit error still names the field: \(answers[1])")
        #expect(upstream.all.contains { $0.path.contains("echo_key") }, "the echoing upstream was reached")
        await proxy.stop()
        let audit = try Self.auditBytes(proxy)
        let log = proxy.log.output
        // "No secret at rest" means something only if the rows were read: every request's id
        // is in the bytes searched.
        #expect(!audit.isEmpty, "no audit file was read")
        for id in ids { #expect(Self.contains(audit, id), "the audit bytes searched do not hold request \(id)") }
        for secret in Self.secrets {
            for (i, answer) in answers.enumerated() { #expect(!answer.contains(secret), "answer \(i) holds \(secret): \(answer)") }
            #expect(!log.contains(secret), "the log holds \(secret)")
            #expect(!Self.contains(audit, secret), "the audit file holds \(secret)")
        }
        #expect(log.contains(Fingerprint.of(ProxyHarness.buzzkitToken)), "the token is named by its fingerprint")
    }

    @Test func aRefusedRequestKeepsABoundedExcerpt() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL)
        let presented = "wrong-key-0123456789"
        let padding = String(repeating: "lorem \(presented) ipsum ", count: 2000)
        let body = try Self.oneSignalStart(name: "n", extra: ["token": .string(Self.tokenA), "notes": .string(padding)])
        let pwBody = Array(#"{"request":{"application":"NOPE1-NOPE1","auth":"\#(presented)","notes":"\#(padding)","notifications":[]}}"#.utf8)
        let cases: [(String, String, [UInt8], [(String, String)])] = [
            ("wrong key", Self.osStart, body, [("Authorization", "Key \(presented)")]),
            ("unknown app", "/apps/no_such_app_7/activities/activity/DeliveryAttributes", body, [("Authorization", "Key \(presented)")]),
            ("pushwoosh unknown app", "/json/1.3/startLiveActivity", pwBody, []),
        ]
        let reader = try AuditReader(path: proxy.auditPath)
        for (what, path, bytes, headers) in cases {
            let reply = try await proxy.send(path: path, body: bytes, headers: headers)
            let id = try #require(reply.headers["x-pushbridge-request-id"], "\(what)")
            let stored = try #require(try reader.show(requestId: id)?.entry.inboundBody, "\(what)")
            #expect(stored.utf8.count < Redaction.excerptBytes + 1024, "\(what): \(stored.utf8.count) bytes stored for a \(bytes.count)-byte body")
            let summary = try #require(try JSONParser.parse(Array(stored.utf8)).objectValue, "\(what)")
            #expect(summary["bytes"]?.numberValue?.int64Value == Int64(bytes.count), "\(what)")
            #expect(summary["sha256"]?.stringValue == Fingerprint.of(String(decoding: bytes, as: UTF8.self)), "\(what)")
            #expect(summary["truncated"] == .bool(true), "\(what)")
            let excerpt = try #require(summary["excerpt"]?.stringValue, "\(what)")
            #expect(excerpt.hasPrefix("{"), "\(what): \(excerpt.prefix(40))")
            #expect(!stored.contains(presented) && !stored.contains(Self.tokenA), "\(what): a secret in the excerpt")
        }
        #expect(upstream.all.isEmpty)
        await proxy.stop()
    }
}
