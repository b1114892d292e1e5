import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// A configuration reload changes the admin listener without a restart (issue 29 item 13):
/// a new token is the only one taken from the next request on, on the same port; removing
/// `admin` stops the listener and adding it back starts it.
@Suite(.serialized) struct AdminReloadTests {
    @Test func aReloadReKeysStopsAndStartsTheAdminListener() async throws {
        let openPush = try RecordingSandbox()
        let configuration = TestConfiguration(upstream: openPush.baseURL, apps: [TestApp.os]).with { $0.admin = .init(tokenEnv: "ADMIN_TOKEN") }
        let first = "admin-reload-first-token", second = "admin-reload-second-token"
        let environment = { (token: String) in ProxyHarness.environment.merging(["ADMIN_TOKEN": token]) { $1 } }
        let proxy = try ProxyHarness(.inProcess, configuration: configuration, environment: environment(first))
        let port = try #require(proxy.runtime.adminServer?.port)
        let bearer = { (token: String) in [("Authorization", "Bearer \(token)")] }
        #expect(try await RawHTTPClient.send(port: port, target: "/admin/readiness", headers: bearer(first)).status == 200)

        proxy.runtime.reload(try proxy.configuration.load(environment: environment(second)))
        await proxy.runtime.admin.settled()
        #expect(proxy.runtime.adminServer?.port == port, "a new token restarted the listener")
        #expect(try await RawHTTPClient.send(port: port, target: "/admin/readiness", headers: bearer(first)).status == 401)
        #expect(try await RawHTTPClient.send(port: port, target: "/admin/readiness", headers: bearer(second)).status == 200)

        proxy.runtime.reload(try proxy.configuration.with { $0.admin = nil }.load(environment: environment(second)))
        await proxy.runtime.admin.settled()
        #expect(proxy.runtime.adminServer == nil)
        #expect((try? await RawHTTPClient.send(port: port, target: "/admin/readiness", headers: bearer(second))) == nil, "the admin port still answers")

        proxy.runtime.reload(try proxy.configuration.load(environment: environment(second)))
        await proxy.runtime.admin.settled()
        let again = try #require(proxy.runtime.adminServer?.port)
        #expect(try await RawHTTPClient.send(port: again, target: "/admin/readiness", headers: bearer(second)).status == 200)
        #expect(proxy.log.lines.filter { $0.contains("msg=\"admin listener started\"") }.count == 2, "\(proxy.log.lines)")
        #expect(!proxy.log.lines.contains { $0.contains(first) || $0.contains(second) }, "an admin token reached the log")
        await proxy.stop()
    }
}
