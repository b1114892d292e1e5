import Foundation
import PushBridgeTestSupport
import Testing
import PushBridgeCore
import PushBridgeServer
import Synchronization

struct SandboxSeedAndStoreTests {
    typealias H = SandboxHarness

    static var fixture: String {
        Repository.path("fixtures/sandbox/seed.json")
    }

    static func tempPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pb-sandbox-\(UUID().uuidString)-\(name)").path
    }

    @Test func fixtureSeedLoads() throws {
        let seed = try SandboxSeed.load(path: Self.fixture)
        #expect(seed.apps.map(\.app.id) == ["app_3f9c2b"])
        #expect(seed.apps[0].devices.count == 2)
        #expect(seed.apps[0].activities.map(\.activityId) == ["order_77001"])
    }

    @Test func restKeyMayComeFromTheEnvironment() throws {
        let doc = try JSONParser.parse(#"{"apps": [{"id": "a", "rest_key_env": "SANDBOX_KEY", "bundle_id": "b"}]}"#)
        #expect(try SandboxSeed.parse(doc, environment: ["SANDBOX_KEY": "k1"]).apps[0].app.restKey == "k1")
        #expect(throws: SandboxSeedError.self) { try SandboxSeed.parse(doc, environment: [:]) }
    }

    @Test func badTokensInTheSeedAreNamed() throws {
        let doc = try JSONParser.parse(#"{"apps": [{"id": "a", "rest_key": "k", "bundle_id": "b", "devices": [{"subscription_id": "s", "push_token": "xyz"}]}]}"#)
        do {
            _ = try SandboxSeed.parse(doc)
            Issue.record("expected an error")
        } catch let e as SandboxSeedError {
            #expect(e.description == "apps[0].devices[0].push_token: must be a hex APNs token of even length, 64–512 characters")
        }
    }

    @Test func seededOpenActivityCanBeUpdated() async throws {
        let service = try SandboxLauncher.makeService(seedPath: Self.fixture, dbPath: nil)
        let r = await service.handle(HTTPRequest(method: "POST", target: "/apps/app_3f9c2b/live_activities/order_77001/notifications",
                                                 headers: [("X-OP-API-Key", "op_sandbox_demo_rest_key")], body: Array(H.updateBody().utf8)))
        #expect(r.status == 201)
    }

    @Test func sqliteStoreKeepsStateAcrossRestarts() async throws {
        let path = Self.tempPath("state.db")
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let body = H.startBody(["idempotency_key": "\"5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1f2\"", "included_segments": "[\"seg_01hq8n4t2v\"]"])
        let auth = [(name: "Authorization", value: "Key op_sandbox_demo_rest_key")]
        let first: String?
        do {
            let service = try SandboxLauncher.makeService(seedPath: Self.fixture, dbPath: path)
            let r = Reply(await service.handle(HTTPRequest(method: "POST", target: "/apps/app_3f9c2b/activities/activity/DeliveryAttributes", headers: auth, body: Array(body.utf8))))
            #expect(r.status == 201)
            first = r.json["notification_id"]?.stringValue
        }
        let reopened = try SandboxLauncher.makeService(seedPath: nil, dbPath: path)
        #expect(reopened.sends().count == 1)
        #expect(reopened.sends().first?["reached"] == .int(2))
        let replay = Reply(await reopened.handle(HTTPRequest(method: "POST", target: "/apps/app_3f9c2b/activities/activity/DeliveryAttributes", headers: auth, body: Array(body.utf8))))
        #expect(replay.json["notification_id"]?.stringValue == first)
        #expect(replay.header("Idempotent-Replayed") == "true")
        let update = Reply(await reopened.handle(HTTPRequest(method: "POST", target: "/apps/app_3f9c2b/live_activities/order_88214/notifications", headers: auth, body: Array(H.updateBody().utf8))))
        #expect(update.status == 201)
        #expect(reopened.sends().last?["reached"] == .int(2))
    }

    @Test func commandRefusesBadArgumentsNamingThem() async throws {
        let listen = try await CLIRunner.runAsync(["sandbox", "--listen", "nope"])
        #expect(listen.status == 2 && listen.stderr.contains("--listen takes HOST:PORT, not 'nope'"), "\(listen.stderr)")
        let sends = try await CLIRunner.runAsync(["sandbox", "sends"])
        #expect(sends.status == 2 && sends.stderr.contains("missing --db FILE"), "\(sends.stderr)")
    }

    @Test func commandServesTheSeedUntilStopped() async throws {
        let o = SandboxLauncher.Options(host: "127.0.0.1", port: 0, seedPath: Self.fixture)
        let port = Mutex<UInt16>(0)
        try await SandboxLauncher.serve(o, ready: { p in port.withLock { $0 = p } }, until: {
            let p = port.withLock { $0 }
            let r = try? await RawHTTPClient.send(port: p, method: "GET", target: "/_sandbox/clock")
            #expect(r?.status == 200)
        })
        #expect(port.withLock { $0 } != 0)
    }

    @Test func commandListsSendsFromTheDatabaseAndRefusesBadArguments() async throws {
        let path = Self.tempPath("list.db")
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let missing = try await CLIRunner.runAsync(["sandbox", "sends", "--db", path])
        #expect(missing.status == 1 && missing.stderr.contains("no sandbox file at \(path)"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path), "listing created the file")
        _ = try SandboxLauncher.makeService(seedPath: nil, dbPath: path)
        let listed = try await CLIRunner.runAsync(["sandbox", "sends", "--db", path])
        #expect(listed.status == 0 && listed.stdout.contains("\"sends\""), "\(listed.stdout)\(listed.stderr)")
        let bogus = try await CLIRunner.runAsync(["sandbox", "--bogus"])
        #expect(bogus.status == 2 && bogus.stderr.contains("unknown option --bogus"))
    }
}
