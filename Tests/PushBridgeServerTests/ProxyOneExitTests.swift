import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// Every answer leaves through one exit: it carries `X-PushBridge-Request-Id` (the audit row's
/// id) and writes one access line, whatever the mode and however the request ended.
@Suite(.serialized)
struct ProxyOneExitTests {
    static func accessLines(_ proxy: ProxyHarness, requestId: String) -> [String] {
        proxy.log.lines.filter { $0.contains("msg=request") && $0.contains("request_id=\(requestId)") }
    }

    @Test func observeAndLegacyPrimaryShadowAnswersCarryTheRequestIdOfTheirAuditRow() async throws {
        let openPush = try RecordingSandbox(), shadowSandbox = try RecordingSandbox()
        let os = try FakeLegacyProvider(.onesignal), pw = try FakeLegacyProvider(.pushwoosh)
        let proxy = try ProxyHarness(.inProcess, configuration: ProxyModesLiveTests.configuration(openPush, os, pw, osApp: { $0.mode = .observe }, pwApp: {
            $0.mode = .shadow
            $0.shadow = .init(primary: .legacy, openPushBaseURL: shadowSandbox.baseURL)
        }))
        let observed = try await proxy.send(path: ProxyModesLiveTests.startPath, body: ProxyModesLiveTests.startBody)
        let shadowed = try await proxy.send(path: "/json/1.3/startLiveActivity", body: ProxyModesLiveTests.pushwooshBody)
        let reader = try AuditReader(path: proxy.auditPath)
        for (mode, reply, outcome) in [("observe", observed, "translated"), ("shadow", shadowed, "forwarded")] {
            let id = try #require(reply.headers["x-pushbridge-request-id"], "\(mode): no X-PushBridge-Request-Id")
            #expect(try reader.show(requestId: id)?.outcome == outcome, "\(mode): the header names no audit row")
            #expect(Self.accessLines(proxy, requestId: id).count == 1, "\(mode): one access line")
        }
        #expect(await eventually { shadowSandbox.all.count == 1 }, "the shadow still runs")
        await proxy.stop()
    }

    @Test func aFailedAuditBeginStillAnswersWithTheRequestIdAndWritesTheAccessLine() async throws {
        let upstream = try RecordingSandbox()
        let proxy = try ProxyHarness(.inProcess, upstream: upstream.baseURL)
        await proxy.runtime.audit.close()
        let reply = try await proxy.send(path: ProxyModesLiveTests.startPath, body: ProxyModesLiveTests.startBody)
        #expect(reply.status == 500)
        let id = try #require(reply.headers["x-pushbridge-request-id"])
        let lines = Self.accessLines(proxy, requestId: id)
        #expect(lines.count == 1 && lines.first?.contains("status=500") == true, "access lines: \(lines)")
        #expect(upstream.all.isEmpty, "nothing is sent without its audit row")
        await proxy.stop()
    }

    @Test func anObservedLegacyAnswerThatEchoesTheCallerKeyReachesTheCallerScrubbed() async throws {
        let openPush = try RecordingSandbox()
        let os = try FakeLegacyProvider(.onesignal) { request in
            let key = request.headers.first { $0.name.lowercased() == "authorization" }?.value ?? ""
            return HTTPResponse(status: 400, headers: [("Content-Type", "application/json")], body: Array(#"{"errors": ["key \#(key) is wrong"]}"#.utf8))
        }
        let pw = try FakeLegacyProvider(.pushwoosh)
        let proxy = try ProxyHarness(.inProcess, configuration: ProxyModesLiveTests.configuration(openPush, os, pw, osApp: { $0.mode = .observe }))
        let reply = try await proxy.send(path: ProxyModesLiveTests.startPath, body: ProxyModesLiveTests.startBody)
        let echoed = try #require(os.all.first, "the legacy provider was not called")
        #expect(String(decoding: echoed.response.body, as: UTF8.self).contains(ProxyHarness.oneSignalKey), "the provider did not echo the key")
        #expect(reply.status == 400)
        let text = String(decoding: reply.body, as: UTF8.self)
        #expect(!text.contains(ProxyHarness.oneSignalKey) && text.contains("sha256:"), "the caller got its key back in clear: \(text)")
        await proxy.stop()
    }
}
