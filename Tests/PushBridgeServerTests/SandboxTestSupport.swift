import Foundation
import Testing
import PushBridgeCore
import PushBridgeServer

/// A sandbox with a fixed clock and one seeded app, driven in process.
struct SandboxHarness {
    static let t0: Int64 = 1_767_225_600
    static let app = "app_3f9c2b"
    static let key = "rk_test_3f9c2b"
    static let bundle = "com.example.bakery"
    static let segment = "seg_01hq8n4t2v"
    static let type = "DeliveryAttributes"

    let clock = SandboxClock(start: SandboxHarness.t0, frozen: true)
    let service: SandboxService
    /// The server when requests go over real HTTP on 127.0.0.1.
    let server: HTTPServer?

    /// A sandbox; `devices` seeded devices in the segment with push-to-start tokens for `type`.
    init(_ transport: Transport = .inProcess, devices: Int = 1, options: SandboxOptions = SandboxOptions()) throws {
        service = SandboxService(clock: clock, options: options)
        server = transport == .http ? try HTTPServer(handler: service.handler) : nil
        var seedDevices: [JSONValue] = []
        for i in 0..<devices {
            seedDevices.append(.object([
                "subscription_id": .string("sub_\(i)"), "push_token": .string(Self.token(i)),
                "aliases": .object(["external_id": .string("user_\(i)")]), "segments": .array([.string(Self.segment)]),
                "push_to_start_tokens": .object([Self.type: .string(Self.token(100_000 + i))]),
            ]))
        }
        let seed: JSONValue = .object(["apps": .array([
            .object(["id": .string(Self.app), "rest_key": .string(Self.key), "bundle_id": .string(Self.bundle), "devices": .array(seedDevices)]),
            .object(["id": .string("app_other"), "rest_key": .string("rk_other"), "bundle_id": .string("com.example.other")]),
        ])])
        try service.apply(SandboxSeed.parse(seed))
    }

    /// A 64-hex-digit token unique to `i`.
    static func token(_ i: Int) -> String { String(format: "%064x", i) }

    /// Sends a request with a JSON body text.
    func send(_ path: String, _ body: String? = nil, method: String = "POST", headers: [(name: String, value: String)]? = nil) async -> Reply {
        let h = (headers ?? [("Authorization", "Key \(Self.key)")]) + [("Content-Type", "application/json")]
        let bytes = Array((body ?? "").utf8)
        guard let server else { return Reply(await service.handle(HTTPRequest(method: method, target: path, headers: h, body: bytes))) }
        do {
            let raw = try await RawHTTPClient.send(port: server.port, method: method, target: path, headers: h.map { ($0.name, $0.value) }, body: bytes)
            return Reply(HTTPResponse(status: raw.status, headers: raw.headers, body: raw.body))
        } catch {
            return Reply(HTTPResponse(status: 0, body: Array("\(error)".utf8)))
        }
    }

    /// Posts to the start route for `type`.
    func start(_ body: String, app: String = SandboxHarness.app, type: String = SandboxHarness.type, headers: [(name: String, value: String)]? = nil) async -> Reply {
        await send("/apps/\(app)/activities/activity/\(type)", body, headers: headers)
    }

    /// Posts to the update/end route.
    func notify(_ id: String, _ body: String, app: String = SandboxHarness.app) async -> Reply {
        await send("/apps/\(app)/live_activities/\(id)/notifications", body)
    }

    /// The accepted sends.
    var sends: [JSONObject] { service.sends() }

    /// A valid start body with overrides (`nil` removes a key); keys given as JSON text.
    static func startBody(_ overrides: [String: String?] = [:]) -> String {
        var fields: [(String, String)] = [
            ("event", "\"start\""), ("activity_id", "\"order_88214\""), ("name", "\"Order 88214 out for delivery\""),
            ("event_attributes", "{\"orderNumber\": \"88214\", \"storeName\": \"Bakery on Main\"}"),
            ("event_updates", "{\"stage\": \"out_for_delivery\", \"etaMinutes\": 22}"),
            ("headings", "{\"en\": \"On the way\"}"), ("contents", "{\"en\": \"Arriving in about 22 minutes\"}"),
            ("included_segments", "[\"\(segment)\"]"), ("priority", "10"),
        ]
        for (k, v) in overrides {
            fields.removeAll { $0.0 == k }
            if let v { fields.append((k, v)) }
        }
        return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }

    /// A valid update body with overrides.
    static func updateBody(_ overrides: [String: String?] = [:]) -> String {
        var fields: [(String, String)] = [
            ("event", "\"update\""), ("name", "\"Order 88214 nearby\""),
            ("event_updates", "{\"stage\": \"arriving\", \"etaMinutes\": 3}"),
            ("headings", "{\"en\": \"Almost there\"}"), ("contents", "{\"en\": \"Your order is 3 minutes away\"}"),
        ]
        for (k, v) in overrides {
            fields.removeAll { $0.0 == k }
            if let v { fields.append((k, v)) }
        }
        return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }
}

/// How a test reaches the sandbox: `handle` in process, or real HTTP on 127.0.0.1.
enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inProcess, http
    /// Both.
    static let all: [Transport] = allCases
    var testDescription: String { rawValue }
}

/// A response with its body parsed.
struct Reply {
    let status: Int
    let json: JSONObject
    let response: HTTPResponse

    init(_ response: HTTPResponse) {
        self.response = response
        status = response.status
        json = (try? JSONParser.parse(response.body))?.objectValue ?? [:]
    }

    /// The `errors` messages.
    var errors: [String] { (json["errors"]?.arrayValue ?? []).compactMap(\.stringValue) }

    /// A header.
    func header(_ name: String) -> String? { response.header(name) }
}

extension JSONObject {
    /// Follows a path of keys and array indexes.
    func at(_ path: Any...) -> JSONValue? {
        var cur: JSONValue? = .object(self)
        for p in path {
            if let k = p as? String { cur = cur?.objectValue?[k] }
            else if let i = p as? Int { cur = cur?.arrayValue.flatMap { i < $0.count ? $0[i] : nil } }
        }
        return cur
    }
}
