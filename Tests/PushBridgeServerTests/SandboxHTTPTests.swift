import Foundation
import Testing
import PushBridgeCore
import PushBridgeServer

/// The sandbox served over real HTTP on 127.0.0.1, driven with curl exactly as the reference
/// document's examples are written (only the base URL differs).
struct SandboxHTTPTests {
    static let key = "op_sandbox_demo_rest_key"

    /// Runs curl with arguments; returns status, headers text and body. Never blocks a
    /// cooperative thread: the exit is awaited through the termination handler.
    static func curl(_ arguments: [String]) async throws -> (status: Int, headers: String, body: JSONObject) {
        let headerFile = FileManager.default.temporaryDirectory.appendingPathComponent("pb-curl-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: headerFile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-D", headerFile, "-w", "\n%{http_code}"] + arguments
        process.environment = ["OP_REST_KEY": key, "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        process.standardOutput = out
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
            process.terminationHandler = { _ in c.resume() }
            do { try process.run() } catch { c.resume(throwing: error) }
        }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        let body = lines.dropLast().joined(separator: "\n")
        let headers = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        return (status, headers, (try? JSONParser.parse(body))?.objectValue ?? [:])
    }

    @Test func referenceExamplesOverRealHTTP() async throws {
        let service = try SandboxLauncher.makeService(seedPath: SandboxSeedAndStoreTests.fixture, dbPath: nil)
        let server = try HTTPServer(handler: service.handler)
        let base = "http://127.0.0.1:\(server.port)"

        // Start, exactly as in the reference (`-H "Authorization: Key $OP_REST_KEY"`).
        let start = try await Self.curl(["-X", "POST", base + "/apps/app_3f9c2b/activities/activity/DeliveryAttributes",
            "-H", "Authorization: Key \(Self.key)", "-H", "Content-Type: application/json", "-d", """
            {
                "event": "start",
                "activity_id": "order_88214",
                "name": "Order 88214 out for delivery",
                "event_attributes": {"orderNumber": "88214", "storeName": "Bakery on Main"},
                "event_updates": {"stage": "out_for_delivery", "etaMinutes": 22},
                "headings": {"en": "On the way"},
                "contents": {"en": "Arriving in about 22 minutes"},
                "included_segments": ["seg_01hq8n4t2v"],
                "priority": 10,
                "idempotency_key": "5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1f2"
              }
            """])
        #expect(start.status == 201)
        #expect(start.body.keys == ["notification_id"])
        #expect(start.body["notification_id"]?.stringValue?.hasPrefix("msg_") == true)

        // Update, exactly as in the reference.
        let update = try await Self.curl(["-X", "POST", base + "/apps/app_3f9c2b/live_activities/order_88214/notifications",
            "-H", "Authorization: Key \(Self.key)", "-H", "Content-Type: application/json", "-d", """
            {
                "event": "update",
                "name": "Order 88214 nearby",
                "event_updates": {"stage": "arriving", "etaMinutes": 3},
                "headings": {"en": "Almost there"},
                "contents": {"en": "Your order is 3 minutes away"},
                "priority": 10
              }
            """])
        #expect(update.status == 201)
        #expect(update.body.keys == ["id"])

        // The replay of the start is answered from the idempotency record.
        let replay = try await Self.curl(["-X", "POST", base + "/apps/app_3f9c2b/activities/activity/DeliveryAttributes",
            "-H", "X-OP-API-Key: \(Self.key)", "-d", SandboxHarness.startBody(["idempotency_key": "\"5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1f2\""])])
        #expect(replay.status == 201)
        #expect(replay.body["notification_id"] == start.body["notification_id"])
        #expect(replay.headers.lowercased().contains("idempotent-replayed: true"))

        // A start with ios_interruption_level is accepted and leaves no trace in the record.
        let loud = try await Self.curl(["-X", "POST", base + "/apps/app_3f9c2b/activities/activity/DeliveryAttributes",
            "-H", "Authorization: Basic \(Self.key)", "-d",
            SandboxHarness.startBody(["activity_id": "\"order_99\"", "ios_interruption_level": "\"time-sensitive\""])])
        #expect(loud.status == 201)
        let sends = try await Self.curl([base + "/_sandbox/sends?app_id=app_3f9c2b"])
        let records = sends.body["sends"]?.arrayValue ?? []
        #expect(records.count == 3)
        let last = JSONWriter.string(records.last ?? .null)
        #expect(last.contains("\"apns-push-type\":\"liveactivity\""))
        #expect(!last.contains("interruption"))
        #expect(!last.contains("time-sensitive"))

        // The clock moves over HTTP: after 8 h the update no longer targets the activity.
        let moved = try await Self.curl(["-X", "POST", base + "/_sandbox/clock", "-d", "{\"advance_seconds\": 28800}"])
        #expect(moved.status == 200)
        let late = try await Self.curl(["-X", "POST", base + "/apps/app_3f9c2b/live_activities/order_88214/notifications",
            "-H", "Authorization: Key \(Self.key)", "-d", SandboxHarness.updateBody()])
        #expect(late.status == 404)
        #expect(late.body["errors"] == .array([.string("no live activity with that id is open on this app — an activity that has ended can never be updated again")]))

        // Missing key over HTTP: 401.
        let anonymous = try await Self.curl(["-X", "POST", base + "/apps/app_3f9c2b/live_activities/order_88214/notifications", "-d", "{}"])
        #expect(anonymous.status == 401)
        await server.stop()
    }
}
