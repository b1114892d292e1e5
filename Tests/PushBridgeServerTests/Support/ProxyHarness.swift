import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushBridgeCore
import PushBridgeServer
import Synchronization

/// What the upstream behind the proxy received and answered.
struct UpstreamExchange: Sendable {
    var path: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    var response: HTTPResponse
}

/// A real OpenPush stand-in on 127.0.0.1: the sandbox, reached over HTTP, with every exchange
/// recorded. Its clock moves 2 s per request so a long suite never trips the 60/min limit.
final class RecordingSandbox: Sendable {
    let sandbox: SandboxService
    let clock = SandboxClock(start: 1_781_049_600, frozen: true)
    let server: HTTPServer
    private let exchanges = ExchangeLog()
    static let restKey = "op_sandbox_demo_rest_key"

    /// `advancePerRequest` seconds pass on the sandbox clock per request (0: only the test moves it).
    /// `beforeAnswering` runs after the sandbox has handled and recorded a request and before
    /// its answer leaves (a delay there is a timeout for a proxy with a short deadline).
    init(advancePerRequest: Int64 = 2, behaviour: @escaping @Sendable (HTTPRequest) async -> HTTPResponse? = { _ in nil },
         beforeAnswering: @escaping @Sendable (HTTPRequest) async -> Void = { _ in }) throws {
        let seedPath = CLIRunner.repoRoot.appendingPathComponent("config/demo-seed.json").path
        let sandbox = SandboxService(clock: clock, store: MemorySandboxStore(), options: SandboxOptions())
        try sandbox.apply(try SandboxSeed.load(path: seedPath, environment: [:]))
        self.sandbox = sandbox
        let recorded = exchanges
        let clock = self.clock
        server = try HTTPServer(configuration: HTTPServerConfiguration()) { request in
            if advancePerRequest != 0 { _ = clock.advance(by: advancePerRequest) }
            let response: HTTPResponse
            if let special = await behaviour(request) { response = special } else { response = await sandbox.handle(request) }
            recorded.append(UpstreamExchange(path: request.path, headers: request.headers, body: request.body, response: response))
            await beforeAnswering(request)
            return response
        }
    }

    var baseURL: String { "http://127.0.0.1:\(server.port)" }
    var all: [UpstreamExchange] { exchanges.all }
    func reset() { exchanges.reset() }
}

/// A thread-safe list of exchanges.
final class ExchangeLog: Sendable {
    private let items = Mutex<[UpstreamExchange]>([])
    func append(_ e: UpstreamExchange) { items.withLock { $0.append(e) } }
    var all: [UpstreamExchange] { items.withLock { $0 } }
    func reset() { items.withLock { $0.removeAll() } }
}

/// A proxy on 127.0.0.1:0 in front of an upstream, with its audit in a temp folder and its log
/// collected. The caller keys below are what the tests present; the audit and log must never
/// show them.
final class ProxyHarness: Sendable {
    static let oneSignalKey = "os-live-test-key-7f3a"
    static let pushwooshAuth = "SECRET_API_TOKEN"
    static let buzzkitToken = "bk_ws_live_test_token_91c2"
    static let environment = ["OP_KEY": RecordingSandbox.restKey, "OS_KEY": oneSignalKey, "PW_AUTH": pushwooshAuth, "BK_TOKEN": buzzkitToken]

    let runtime: ProxyRuntime
    let log = LineCollector()
    let directory: URL
    let auditPath: String
    /// The configuration JSON it started with (tests edit it to reload).
    let configJSON: String

    /// `upstream` is the OpenPush base URL; `limits` JSON overrides the limits object; `apps`
    /// replaces the default apps; the `…Extra` strings are more members (each starting with a
    /// comma) of an app or of the top level; `directory` reuses an earlier harness's files (a
    /// restart); `clock` drives pacing and the scheduler, `auditClock` audit retention.
    init(upstream: String, limits: String = "{}", pushwooshExtra: String = "", oneSignalExtra: String = "", topExtra: String = "", apps: String? = nil,
         directory reuse: URL? = nil, clock: any DeliveryClock = SystemDeliveryClock(), auditClock: any DeliveryClock = SystemDeliveryClock()) throws {
        directory = reuse ?? FileManager.default.temporaryDirectory.appendingPathComponent("pushbridge-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        auditPath = directory.appendingPathComponent("audit.sqlite").path
        let config = """
        {
          "listen": "127.0.0.1:0", "audit_db": "\(auditPath)", "limits": \(limits),
          "openpush": {"base_url": "\(upstream)"} \(topExtra),
          "apps": \(apps ?? Self.defaultApps(pushwooshExtra: pushwooshExtra, oneSignalExtra: oneSignalExtra))
        }
        """
        configJSON = config
        let configuration = try ProxyConfiguration.load(json: Array(config.utf8), environment: Self.environment)
        runtime = try ProxyRuntime.start(configuration, log: EventLog(format: .logfmt, minimumLevel: .info, sink: log.sink), clock: clock, auditClock: auditClock)
    }

    static func defaultApps(pushwooshExtra: String, oneSignalExtra: String = "") -> String {
        """
          [
            {"name": "os", "dialect": "onesignal", "source_app_id": "app_3f9c2b",
             "openpush": {"app_id": "app_3f9c2b", "rest_key_env": "OP_KEY"}, "callers": [{"key_env": "OS_KEY"}] \(oneSignalExtra)},
            {"name": "os-mapped", "dialect": "onesignal", "source_app_id": "5eb5a37e-b458-11e3-ac11-000c2940e62c",
             "openpush": {"app_id": "app_3f9c2b", "rest_key_env": "OP_KEY"}, "callers": [{"key_env": "OS_KEY"}]},
            {"name": "pw", "dialect": "pushwoosh", "source_app_id": "XXXXX-XXXXX",
             "openpush": {"app_id": "app_3f9c2b", "rest_key_env": "OP_KEY"}, "callers": [{"key_env": "PW_AUTH"}] \(pushwooshExtra)},
            {"name": "bk", "dialect": "buzzkit", "source_app_id": "buzzkit",
             "openpush": {"app_id": "app_3f9c2b", "rest_key_env": "OP_KEY"}, "callers": [{"key_env": "BK_TOKEN"}]}
          ]
        """
    }

    var port: UInt16 { runtime.port }

    /// Sends a request with the dialect's credentials added.
    func send(path: String, body: [UInt8], headers extra: [(String, String)]? = nil, session: URLSession = .shared) async throws -> (status: Int, headers: [String: String], body: [UInt8]) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let headers = extra ?? Self.credentials(for: path)
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var out: [String: String] = [:]
        for (k, v) in http.allHeaderFields { out[String(describing: k).lowercased()] = String(describing: v) }
        return (http.statusCode, out, Array(data))
    }

    static func credentials(for path: String) -> [(String, String)] {
        guard let route = InboundRoute.match(path: path) else { return [] }
        switch route.dialect {
        case .onesignal: return [("Authorization", "Key \(oneSignalKey)")]
        case .buzzkit: return [("Authorization", "Bearer \(buzzkitToken)")]
        case .pushwoosh: return []
        }
    }

    func stop() async {
        await runtime.stop(gracePeriod: .seconds(2))
    }
}
