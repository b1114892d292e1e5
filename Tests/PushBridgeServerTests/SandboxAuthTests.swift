import Foundation
import Testing
import PushBridgeCore
import PushBridgeServer

struct SandboxAuthTests {
    typealias H = SandboxHarness

    @Test func authorizationKeyIsAccepted() async throws {
        let h = try H()
        let r = await h.start(H.startBody(), headers: [("Authorization", "Key \(H.key)")])
        #expect(r.status == 201)
    }

    @Test func basicSchemeTakesTheLiteralKey() async throws {
        let h = try H()
        #expect(await h.start(H.startBody(), headers: [("Authorization", "Basic \(H.key)")]).status == 201)
    }

    @Test func basicWithBase64OfTheKeyIsRefused() async throws {
        let h = try H()
        let b64 = Data(H.key.utf8).base64EncodedString()
        let r = await h.start(H.startBody(), headers: [("Authorization", "Basic \(b64)")])
        #expect(r.status == 403)
        #expect(r.errors == ["authorization: the REST key is not valid for this app"])
    }

    @Test func xOpApiKeyIsAccepted() async throws {
        let h = try H()
        #expect(await h.start(H.startBody(), headers: [("X-OP-API-Key", H.key)]).status == 201)
    }

    @Test func missingCredentialsAre401() async throws {
        let h = try H()
        let r = await h.start(H.startBody(), headers: [])
        #expect(r.status == 401)
        #expect(r.errors == ["authorization: a REST key is required (Authorization: Key <key> or X-OP-API-Key: <key>)"])
    }

    @Test func unsupportedSchemeIs401() async throws {
        let h = try H()
        #expect(await h.start(H.startBody(), headers: [("Authorization", "Bearer \(H.key)")]).status == 401)
    }

    @Test func wrongKeyIs403() async throws {
        let h = try H()
        let r = await h.start(H.startBody(), headers: [("Authorization", "Key rk_wrong")])
        #expect(r.status == 403)
        #expect(r.errors == ["authorization: the REST key is not valid for this app"])
    }

    @Test func keysArePerApp() async throws {
        let h = try H()
        let r = await h.start(H.startBody(), app: "app_other", headers: [("Authorization", "Key \(H.key)")])
        #expect(r.status == 403)
        let u = await h.send("/apps/\(H.app)/live_activities/x/notifications", H.updateBody(), headers: [("X-OP-API-Key", "rk_other")])
        #expect(u.status == 403)
    }

    @Test func unknownAppIs403() async throws {
        let h = try H()
        #expect(await h.start(H.startBody(), app: "app_nope").status == 403)
    }

    @Test func updateRouteNeedsAuthToo() async throws {
        let h = try H()
        let r = await h.send("/apps/\(H.app)/live_activities/order_88214/notifications", H.updateBody(), headers: [])
        #expect(r.status == 401)
    }
}
