import Foundation
import PushBridgeTestSupport
import PushBridgeCore
@testable import PushBridgeServer

/// A real proxy on 127.0.0.1:0 (``TestConfiguration/demo(audit:)``, config/demo.json's apps) forwarding to its embedded OpenPush
/// sandbox, with its audit in a temporary directory: what the hostile-input tests attack.
struct HostileProxyHarness {
    static var repository: URL { Repository.root }
    static let oneSignalPath = "/apps/5eb5a37e-b458-11e3-ac11-000c2940e62c/activities/activity/DeliveryAttributes"
    static let oneSignalAuth = ("Authorization", "Key demo-onesignal-key")
    static let pushwooshPath = "/json/1.3/startLiveActivity"

    let runtime: ProxyRuntime
    /// The audit's folder, removed with the harness.
    let folder: TemporaryDirectory
    var directory: URL { folder.url }
    var port: UInt16 { runtime.port }

    /// Starts the proxy; `idleTimeoutSeconds` bounds how long a stalled connection is kept,
    /// `requestTimeoutSeconds` how long one may take to deliver its request; `log` receives
    /// the proxy's lines (by default only errors, and they are dropped).
    static func start(idleTimeoutSeconds: Int = 3, maxConnections: Int = 1200, perIPConnections: Int? = nil,
                      requestTimeoutSeconds: Int = 10, log: EventLog = EventLog(minimumLevel: .error, sink: { _ in })) throws -> HostileProxyHarness {
        let folder = try TemporaryDirectory("pushbridge-hostile")
        let directory = folder.url
        let configuration = TestConfiguration.demo(audit: directory.appendingPathComponent("audit.sqlite").path).with {
            $0.limits = .init(maxBodyBytes: 65536, maxConnections: maxConnections, perIPConnections: perIPConnections ?? maxConnections, headerMemoryBytes: 16384,
                              idleTimeoutSeconds: idleTimeoutSeconds, requestTimeoutSeconds: requestTimeoutSeconds, upstreamTimeoutMs: 5000)
        }
        return HostileProxyHarness(runtime: try ProxyRuntime.start(try configuration.load(environment: TestConfiguration.demoEnvironment), log: log),
                                   folder: folder)
    }

    /// Stops the proxy (its audit goes with the last copy of the harness).
    func stop() async {
        await runtime.stop(gracePeriod: .seconds(2))
    }

    /// The reference OneSignal start body.
    static var oneSignalBody: [UInt8] {
        (try? Array(Data(contentsOf: repository.appendingPathComponent("fixtures/onesignal-start-reference/body.json")))) ?? []
    }

    /// The reference Pushwoosh start body with the demo app and key.
    static var pushwooshBody: [UInt8] {
        Array(#"{"request":{"application":"DEMO1-23456","auth":"demo-pushwoosh-auth","notifications":[{"content":"Order ready","live_activity":{"event":"start","content-state":{"status":"ready"},"attributes-type":"DeliveryAttributes","attributes":{}},"live_activity_id":"order_1","filter":"FILTER_NAME_1"}]}}"#.utf8)
    }

    /// A well-formed OneSignal start, which the sandbox accepts (201).
    func validOneSignalStart() async throws -> RawHTTPResponse {
        try await RawHTTPClient.send(port: port, method: "POST", target: Self.oneSignalPath,
                                     headers: [Self.oneSignalAuth, ("Content-Type", "application/json")], body: Self.oneSignalBody)
    }

    /// A OneSignal start with `body` as is.
    func oneSignalStart(_ body: [UInt8]) async throws -> RawHTTPResponse {
        try await RawHTTPClient.send(port: port, method: "POST", target: Self.oneSignalPath,
                                     headers: [Self.oneSignalAuth, ("Content-Type", "application/json")], body: body)
    }

    /// A Pushwoosh start with `body` as is.
    func pushwooshStart(_ body: [UInt8]) async throws -> RawHTTPResponse {
        try await RawHTTPClient.send(port: port, method: "POST", target: Self.pushwooshPath, headers: [("Content-Type", "application/json")], body: body)
    }

    /// The request head for a OneSignal start, without the blank line, for hand-made requests.
    static func oneSignalHead(_ extra: [String]) -> String {
        (["POST \(oneSignalPath) HTTP/1.1", "Host: 127.0.0.1", "Connection: close", "Authorization: Key demo-onesignal-key",
          "Content-Type: application/json"] + extra).joined(separator: "\r\n") + "\r\n"
    }

    /// The OneSignal error shape: `{"errors": [message, …]}`; returns the messages.
    static func oneSignalErrors(_ response: RawHTTPResponse) -> [String]? {
        (try? JSONParser.parse(response.body))?.objectValue?["errors"]?.arrayValue?.compactMap(\.stringValue)
    }
}
