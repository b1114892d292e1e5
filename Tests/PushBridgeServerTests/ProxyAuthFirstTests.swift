import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// Authentication comes first: an unauthenticated caller cannot tell an unknown app from a
/// wrong key, and a Pushwoosh caller may present its API token as `Authorization: Token …`.
@Suite(.serialized)
struct ProxyAuthFirstTests {
    static let pwStart = "/json/1.3/startLiveActivity"

    static func pushwooshBody(application: String = "XXXXX-XXXXX", auth: String?) throws -> [UInt8] {
        var root = try #require(try JSONParser.parse(ProxyFailureTests.fixture("pushwoosh-start-filter-reference")).objectValue)
        var request = try #require(root["request"]?.objectValue)
        request["application"] = .string(application)
        if let auth { request["auth"] = .string(auth) } else { request = JSONObject(members: request.members.filter { $0.key != "auth" }) }
        root["request"] = .object(request)
        return JSONWriter.bytes(.object(root))
    }

    @Test func anUnknownAppAndAWrongKeyLookTheSameToAnUnauthenticatedCaller() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: upstream.baseURL).with { $0.app("pw") { $0.segmentMap = TestApp.pushwooshSegmentMap } })
        let osBody = try ProxyFailureTests.fixture("onesignal-start-reference")
        let known = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes", unknown = "/apps/no_such_app_7/activities/activity/DeliveryAttributes"
        let pairs: [(String, (String, [UInt8], [(String, String)]), (String, [UInt8], [(String, String)]))] = [
            ("onesignal wrong key", (known, osBody, [("Authorization", "Key wrong-key-123")]), (unknown, osBody, [("Authorization", "Key wrong-key-123")])),
            ("onesignal no key", (known, osBody, []), (unknown, osBody, [])),
            ("pushwoosh wrong auth", (Self.pwStart, try Self.pushwooshBody(auth: "WRONG_TOKEN_1"), []),
             (Self.pwStart, try Self.pushwooshBody(application: "NOPE1-NOPE1", auth: "WRONG_TOKEN_1"), [])),
            ("pushwoosh no auth", (Self.pwStart, try Self.pushwooshBody(auth: nil), []), (Self.pwStart, try Self.pushwooshBody(application: "NOPE1-NOPE1", auth: nil), [])),
        ]
        for (what, a, b) in pairs {
            let knownReply = try await proxy.send(path: a.0, body: a.1, headers: a.2)
            let unknownReply = try await proxy.send(path: b.0, body: b.1, headers: b.2)
            #expect(knownReply.status == unknownReply.status, "\(what): \(knownReply.status) vs \(unknownReply.status)")
            #expect(knownReply.body == unknownReply.body,
                    "\(what): \(String(decoding: knownReply.body, as: UTF8.self)) vs \(String(decoding: unknownReply.body, as: UTF8.self))")
            #expect(ProxyFixtureLiveTests.isDialectError(InboundRoute.match(path: a.0)!.dialect, status: knownReply.status, body: knownReply.body), "\(what)")
            let text = String(decoding: unknownReply.body, as: UTF8.self)
            #expect(!text.contains("no_such_app_7") && !text.contains("NOPE1-NOPE1"), "\(what): the answer names the app: \(text)")
        }
        // A caller holding a configured key may learn that the app id is wrong.
        let authenticated = try await proxy.send(path: unknown, body: osBody)
        #expect(authenticated.status == 404 && String(decoding: authenticated.body, as: UTF8.self).contains("not configured"))
        #expect(upstream.all.isEmpty, "nothing reaches OpenPush")
        await proxy.stop()
    }

    @Test func aPushwooshTokenHeaderIsTheCredentialWhenTheBodyHasNoAuth() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(.inProcess, configuration: TestConfiguration(upstream: upstream.baseURL).with { $0.app("pw") { $0.segmentMap = TestApp.pushwooshSegmentMap } })
        let accepted = try await proxy.send(path: Self.pwStart, body: try Self.pushwooshBody(auth: nil),
                                            headers: [("Authorization", "Token \(ProxyHarness.pushwooshAuth)")])
        let answer = try JSONParser.parse(accepted.body).objectValue
        #expect(accepted.status == 200 && answer?["status_code"]?.numberValue?.int64Value == 200, "\(String(decoding: accepted.body, as: UTF8.self))")
        #expect(upstream.all.count == 1, "the start went to OpenPush")
        // A wrong header token is refused like a wrong body auth, and a missing one as missing.
        let wrong = try await proxy.send(path: Self.pwStart, body: try Self.pushwooshBody(auth: nil), headers: [("Authorization", "Token WRONG_TOKEN_1")])
        let wrongBody = try await proxy.send(path: Self.pwStart, body: try Self.pushwooshBody(auth: "WRONG_TOKEN_1"), headers: [])
        #expect(wrong.status == wrongBody.status && wrong.body == wrongBody.body)
        let missing = try await proxy.send(path: Self.pwStart, body: try Self.pushwooshBody(auth: nil), headers: [])
        let missingText = String(decoding: missing.body, as: UTF8.self)
        #expect(ProxyFixtureLiveTests.isDialectError(.pushwoosh, status: missing.status, body: missing.body) && !missingText.contains("is required"), "\(missingText)")
        // The body's auth wins over the header when both are present.
        let both = try await proxy.send(path: Self.pwStart, body: try Self.pushwooshBody(auth: "WRONG_TOKEN_1"),
                                        headers: [("Authorization", "Token \(ProxyHarness.pushwooshAuth)")])
        #expect(both.body == wrongBody.body)
        #expect(upstream.all.count == 1)
        await proxy.stop()
    }
}
