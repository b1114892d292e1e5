import Foundation
import Testing
import PushBridgeCore
import PushBridgeServer

struct SandboxAuthTests {
    typealias H = SandboxHarness

    @Test(arguments: Transport.all) func authorizationKeyIsAccepted(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.start(H.startBody(), headers: [("Authorization", "Key \(H.key)")])
        #expect(r.status == 201)
    }

    @Test(arguments: Transport.all) func basicSchemeTakesTheLiteralKey(_ t: Transport) async throws {
        let h = try H(t)
        #expect(await h.start(H.startBody(), headers: [("Authorization", "Basic \(H.key)")]).status == 201)
    }

    @Test(arguments: Transport.all) func basicWithBase64OfTheKeyIsRefused(_ t: Transport) async throws {
        let h = try H(t)
        let b64 = Data(H.key.utf8).base64EncodedString()
        let r = await h.start(H.startBody(), headers: [("Authorization", "Basic \(b64)")])
        #expect(r.status == 403)
        #expect(r.errors == ["authorization: the REST key is not valid for this app"])
    }

    @Test(arguments: Transport.all) func xOpApiKeyIsAccepted(_ t: Transport) async throws {
        let h = try H(t)
        #expect(await h.start(H.startBody(), headers: [("X-OP-API-Key", H.key)]).status == 201)
    }

    @Test(arguments: Transport.all) func missingCredentialsAre401(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.start(H.startBody(), headers: [])
        #expect(r.status == 401)
        #expect(r.errors == ["authorization: a REST key is required (Authorization: Key <key> or X-OP-API-Key: <key>)"])
    }

    @Test(arguments: Transport.all) func unsupportedSchemeIs401(_ t: Transport) async throws {
        let h = try H(t)
        #expect(await h.start(H.startBody(), headers: [("Authorization", "Bearer \(H.key)")]).status == 401)
    }

    @Test(arguments: Transport.all) func wrongKeyIs403(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.start(H.startBody(), headers: [("Authorization", "Key rk_wrong")])
        #expect(r.status == 403)
        #expect(r.errors == ["authorization: the REST key is not valid for this app"])
    }

    @Test(arguments: Transport.all) func keysArePerApp(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.start(H.startBody(), app: "app_other", headers: [("Authorization", "Key \(H.key)")])
        #expect(r.status == 403)
        let u = await h.send("/apps/\(H.app)/live_activities/x/notifications", H.updateBody(), headers: [("X-OP-API-Key", "rk_other")])
        #expect(u.status == 403)
    }

    @Test(arguments: Transport.all) func unknownAppIs403(_ t: Transport) async throws {
        let h = try H(t)
        #expect(await h.start(H.startBody(), app: "app_nope").status == 403)
    }

    @Test(arguments: Transport.all) func updateRouteNeedsAuthToo(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.send("/apps/\(H.app)/live_activities/order_88214/notifications", H.updateBody(), headers: [])
        #expect(r.status == 401)
    }
}
