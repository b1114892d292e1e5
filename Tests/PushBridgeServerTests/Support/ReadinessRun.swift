import Foundation
import PushBridgeCore
@testable import PushBridgeServer

/// A real proxy run for the readiness tests: the proxy on 127.0.0.1 in front of the sandbox
/// (and a fake legacy OneSignal for shadow mode), its audit a real SQLite file, small
/// thresholds in its configuration's `readiness` object. Sends OneSignal starts as app `os`.
final class ReadinessRun: Sendable {
    static let path = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes"
    let openPush: RecordingSandbox
    let legacy: FakeLegacyProvider
    let proxy: ProxyHarness

    /// `readiness` is the run's thresholds; `shadow` puts app `os` in shadow mode with that
    /// side primary; `legacyFault` and `openPushFault` answer instead of the legacy provider
    /// and the sandbox for bodies with the marker.
    init(readiness: TestConfiguration.Readiness, shadow: ShadowPrimary? = nil, legacyFault: HTTPResponse? = nil, openPushFault: HTTPResponse? = nil) throws {
        openPush = try RecordingSandbox(behaviour: { request in
            String(decoding: request.body, as: UTF8.self).contains(Self.marker) ? openPushFault : nil
        })
        legacy = try FakeLegacyProvider(.onesignal, behaviour: { request in
            String(decoding: request.body, as: UTF8.self).contains(Self.marker) ? legacyFault : nil
        })
        let configuration = TestConfiguration(upstream: openPush.baseURL).with { [legacy] in
            $0.legacy[.onesignal] = legacy.baseURL
            $0.delivery.maxAttempts = 1
            $0.readiness = readiness
            if let shadow { $0.app("os") { $0.mode = .shadow; $0.shadow = .init(primary: shadow) } }
        }
        proxy = try ProxyHarness(.inProcess, configuration: configuration)
    }

    /// The activity id that makes the faults above answer.
    static let marker = "faulty_"

    /// A clean OneSignal start (one info finding: priority defaulted), with `extra` members added.
    static func start(_ activity: String, extra: String = "") -> [UInt8] {
        Array("""
            {"event":"start","activity_id":"\(activity)","name":"Order \(activity)","event_attributes":{"orderNumber":"1"},\(extra)
             "event_updates":{"stage":"out"},"headings":{"en":"On the way"},"contents":{"en":"Soon"},"included_segments":["seg_01hq8n4t2v"]}
            """.utf8)
    }

    /// Sends the start; returns its audit request id.
    @discardableResult
    func send(_ activity: String, extra: String = "") async throws -> String {
        let reply = try await proxy.send(path: Self.path, body: Self.start(activity, extra: extra))
        return reply.headers["x-pushbridge-request-id"] ?? ""
    }

    /// The configuration the proxy runs, as loaded.
    var configuration: ProxyConfiguration {
        get throws { try proxy.configuration.load() }
    }

    /// The verdicts the audit gives now, judged with the run's own configuration.
    func readiness(app: String? = "os", thresholds: ((inout ReadinessThresholds) -> Void)? = nil) throws -> Readiness {
        var settings = ReadinessSettings(try configuration)
        thresholds?(&settings.thresholds)
        return try AuditReader(path: proxy.auditPath).readiness(ReportFilter(app: app), settings: settings)
    }

    /// Waits until the audit holds `count` shadow comparisons.
    func comparisons(_ count: Int) async -> Bool {
        let path = proxy.auditPath
        return await eventually { ((try? ProxyModesLiveTests.comparisons(path)) ?? []).count == count }
    }

    /// Writes the configuration to a file next to the audit, for the CLI.
    func configFile() throws -> String {
        let file = proxy.directory.appendingPathComponent("config.json").path
        return try proxy.configuration.write(to: file)
    }

    func stop() async {
        await proxy.stop()
        await legacy.stop()
    }
}
