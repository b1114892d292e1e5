import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Bodies the JSON parser must refuse, sent over HTTP to a real proxy: the caller gets its
/// dialect's error naming the problem, nothing is forwarded, and the proxy keeps serving.
@Suite(.serialized) struct HostileBodyTests {
    @Test func duplicateKeyIsAOneSignalErrorNamingTheKey() async throws {
        let proxy = try HostileProxyHarness.start()
        let body = Array(#"{"event":"start","activity_id":"a1","activity_id":"a2","name":"n","event_attributes":{},"event_updates":{},"contents":{"en":"x"},"included_segments":["seg_01hq8n4t2v"]}"#.utf8)
        let response = try await proxy.oneSignalStart(body)
        #expect(response.status == 400)
        let errors = try #require(HostileProxyHarness.oneSignalErrors(response), "not OneSignal-shaped: \(response.text)")
        #expect(errors.contains { $0.contains(#"duplicate key "activity_id""#) }, "\(errors)")
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }

    @Test func duplicateKeyIsAPushwooshErrorNamingTheKey() async throws {
        let proxy = try HostileProxyHarness.start()
        let text = String(decoding: HostileProxyHarness.pushwooshBody, as: UTF8.self)
            .replacingOccurrences(of: #""content":"Order ready""#, with: #""content":"Order ready","content":"again""#)
        let response = try await proxy.pushwooshStart(Array(text.utf8))
        #expect(response.status == 200, "Pushwoosh answers argument errors with HTTP 200")
        let object = try #require((try? JSONParser.parse(response.body))?.objectValue, "\(response.text)")
        #expect(object["status_code"] == JSONValue.int(210))
        #expect(object["status_message"]?.stringValue?.contains(#"duplicate key "content""#) == true, "\(response.text)")
        #expect(try await proxy.pushwooshStart(HostileProxyHarness.pushwooshBody).status == 200)
        await proxy.stop()
    }

    @Test func nestingPastTheDepthLimitIsADialectError() async throws {
        let proxy = try HostileProxyHarness.start()
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        let body = Array(#"{"event":"start","activity_id":"a1","name":"n","event_attributes":{},"event_updates":{"deep":\#(deep)},"contents":{"en":"x"},"included_segments":["seg_01hq8n4t2v"]}"#.utf8)
        let response = try await proxy.oneSignalStart(body)
        #expect(response.status == 400)
        let errors = try #require(HostileProxyHarness.oneSignalErrors(response), "not OneSignal-shaped: \(response.text)")
        #expect(errors.contains { $0.contains("nesting deeper than \(JSONParser.defaultMaxDepth) levels") }, "\(errors)")
        // Nesting that fits the whole 1 MiB body limit is refused the same way, without a stack overflow.
        let deepest = Array(repeating: UInt8(ascii: "["), count: 60_000)
        let refused = try await proxy.oneSignalStart(deepest)
        #expect(refused.status == 400)
        #expect(HostileProxyHarness.oneSignalErrors(refused)?.first?.contains("nesting deeper") == true, "\(refused.text)")
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }

    @Test func invalidUTF8IsADialectError() async throws {
        let proxy = try HostileProxyHarness.start()
        for bad: [UInt8] in [[0xC3, 0x28], [0xED, 0xA0, 0x80], [0xFF], [0xF4, 0x90, 0x80, 0x80]] {
            let body = Array(#"{"event":"start","activity_id":"a1","name":""#.utf8) + bad + Array(#"","event_attributes":{},"event_updates":{},"contents":{"en":"x"},"included_segments":["seg_01hq8n4t2v"]}"#.utf8)
            let response = try await proxy.oneSignalStart(body)
            #expect(response.status == 400, "\(bad)")
            let errors = try #require(HostileProxyHarness.oneSignalErrors(response), "not OneSignal-shaped: \(response.text)")
            #expect(errors.first?.contains("UTF-8") == true, "\(bad): \(errors)")
        }
        #expect(try await proxy.validOneSignalStart().status == 201)
        await proxy.stop()
    }
}
