import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushBridgeCore
import PushBridgeServer
import Synchronization

/// How a test's requests reach the proxy, as HummingbirdTesting's `.router` and `.live`.
enum ProxyTestMode: Sendable {
    /// Straight to ``ProxyService/handle(_:)``: no listener, no socket, no HTTP framing. For
    /// tests of translation, modes, audit, pacing and findings.
    case inProcess
    /// Over HTTP to the proxy's libmicrohttpd listener on 127.0.0.1: for tests of HTTP itself
    /// (framing, limits, slow clients, TLS, deadlines, head errors, a crash).
    case live
}

/// The proxy's answer as a test sees it: header names lower-cased.
typealias ProxyReply = (status: Int, headers: [String: String], body: [UInt8])

/// A proxy in front of an upstream (a real server on 127.0.0.1), with its audit in a temp
/// folder and its log collected; requests reach it in-process or over HTTP (``ProxyTestMode``).
/// The caller keys below are what the tests present; the audit and log must never show them.
final class ProxyHarness: Sendable {
    static let oneSignalKey = "os-live-test-key-7f3a"
    static let pushwooshAuth = "SECRET_API_TOKEN"
    static let buzzkitToken = "bk_ws_live_test_token_91c2"
    static let environment = ["OP_KEY": RecordingSandbox.restKey, "OS_KEY": oneSignalKey, "PW_AUTH": pushwooshAuth, "BK_TOKEN": buzzkitToken]

    let runtime: ProxyRuntime
    let mode: ProxyTestMode
    /// The clock that drives pacing and the scheduler, when the test moves it by hand.
    let manualClock: ManualDeliveryClock?
    let log = LineCollector()
    /// The folder of the audit (and the scheduler's file); removed when the last harness that
    /// holds it goes, so a restart passes it on as `folder:`.
    let folder: TemporaryDirectory?
    let directory: URL
    let auditPath: String
    /// The configuration it started with, its `audit_db` filled in (a test changes a copy
    /// and hands ``TestConfiguration/load(environment:)`` to `runtime.reload`).
    let configuration: TestConfiguration
    /// The configuration file's text it started with.
    var configJSON: String { configuration.json }

    /// A proxy running `configuration` (see ``TestConfiguration``); `mode` says whether requests
    /// go over HTTP (the default) or straight to the service. Its audit is `audit.sqlite` in
    /// its folder unless the configuration names one (a PostgreSQL URI); `folder` reuses an
    /// earlier harness's files (a restart); `directory` is a folder the caller owns and
    /// removes (a mount point); `clock` drives pacing and the scheduler, `auditClock` audit
    /// retention; `environment` holds the secrets the configuration names.
    init(_ mode: ProxyTestMode = .live, configuration: TestConfiguration, folder reuse: TemporaryDirectory? = nil, directory callers: URL? = nil,
         clock: any DeliveryClock = SystemDeliveryClock(), auditClock: any DeliveryClock = SystemDeliveryClock(),
         environment: [String: String] = ProxyHarness.environment) throws {
        if let callers {
            folder = reuse
            directory = callers
        } else {
            let folder = try reuse ?? TemporaryDirectory("pushbridge-proxy")
            self.folder = folder
            directory = folder.url
        }
        var configuration = configuration
        if configuration.auditDatabase == nil { configuration.auditDatabase = directory.appendingPathComponent("audit.sqlite").path }
        auditPath = configuration.auditDatabase ?? ""
        self.configuration = configuration
        self.mode = mode
        manualClock = clock as? ManualDeliveryClock
        runtime = try ProxyRuntime.start(try configuration.load(environment: environment), log: EventLog(format: .logfmt, minimumLevel: .info, sink: log.sink), clock: clock, auditClock: auditClock,
                                         listening: mode == .live)
    }

    /// The older shape, kept for call sites written before ``TestConfiguration``: `upstream`
    /// is the OpenPush base URL; `limits` JSON members go into the limits object; `apps`
    /// replaces the standard apps; the `…Extra` strings are more members (each starting with
    /// a comma) of app `pw`, app `os` or the top level; `auditDatabase` puts the audit
    /// elsewhere. New tests build a ``TestConfiguration`` instead.
    convenience init(_ mode: ProxyTestMode = .live, upstream: String, limits: String = "{}", pushwooshExtra: String = "", oneSignalExtra: String = "", topExtra: String = "", apps: String? = nil,
                     folder reuse: TemporaryDirectory? = nil, directory callers: URL? = nil,
                     clock: any DeliveryClock = SystemDeliveryClock(), auditClock: any DeliveryClock = SystemDeliveryClock(),
                     auditDatabase: String? = nil) throws {
        var configuration = TestConfiguration(upstream: upstream)
        configuration.auditDatabase = auditDatabase
        configuration.fragments = try .init(limits: limits, topExtra: topExtra, pushwooshExtra: pushwooshExtra, oneSignalExtra: oneSignalExtra, apps: apps)
        try self.init(mode, configuration: configuration, folder: reuse, directory: callers, clock: clock, auditClock: auditClock)
    }

    /// The standard apps' JSON with more members for `pw` and `os` (older call sites; new
    /// ones use ``TestApp/standard``).
    static func defaultApps(pushwooshExtra: String, oneSignalExtra: String = "") -> String {
        var configuration = TestConfiguration(upstream: nil)
        configuration.fragments.apps["pw"] = (try? TestConfiguration.Fragments.members(pushwooshExtra)) ?? JSONObject()
        configuration.fragments.apps["os"] = (try? TestConfiguration.Fragments.members(oneSignalExtra)) ?? JSONObject()
        return TestConfiguration.text(configuration.object["apps"] ?? .array([]))
    }

    /// The listener's port (live mode only).
    var port: UInt16 {
        precondition(mode == .live, "an in-process proxy has no port: build the harness with .live")
        return runtime.port
    }

    /// The listener (live mode only).
    var server: HTTPServer {
        guard let server = runtime.server else { preconditionFailure("an in-process proxy has no listener: build the harness with .live") }
        return server
    }

    func stop() async {
        await runtime.stop(gracePeriod: .seconds(2))
    }
}
