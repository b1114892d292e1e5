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
    /// The configuration JSON it started with (tests edit it to reload).
    let configJSON: String

    /// `upstream` is the OpenPush base URL; `limits` JSON overrides the limits object; `apps`
    /// replaces the default apps; the `…Extra` strings are more members (each starting with a
    /// comma) of an app or of the top level; `folder` reuses an earlier harness's files (a
    /// restart); `directory` is a folder the caller owns and removes (a mount point);
    /// `clock` drives pacing and the scheduler, `auditClock` audit retention; `mode` says
    /// whether requests go over HTTP (the default) or straight to the service;
    /// `auditDatabase` puts the audit elsewhere (a PostgreSQL URI).
    init(_ mode: ProxyTestMode = .live, upstream: String, limits: String = "{}", pushwooshExtra: String = "", oneSignalExtra: String = "", topExtra: String = "", apps: String? = nil,
         folder reuse: TemporaryDirectory? = nil, directory callers: URL? = nil,
         clock: any DeliveryClock = SystemDeliveryClock(), auditClock: any DeliveryClock = SystemDeliveryClock(),
         auditDatabase: String? = nil) throws {
        if let callers {
            folder = reuse
            directory = callers
        } else {
            let folder = try reuse ?? TemporaryDirectory("pushbridge-proxy")
            self.folder = folder
            directory = folder.url
        }
        auditPath = auditDatabase ?? directory.appendingPathComponent("audit.sqlite").path
        let config = """
        {
          "listen": "127.0.0.1:0", "audit_db": "\(auditPath)", "limits": \(limits),
          "openpush": {"base_url": "\(upstream)"} \(topExtra),
          "apps": \(apps ?? Self.defaultApps(pushwooshExtra: pushwooshExtra, oneSignalExtra: oneSignalExtra))
        }
        """
        configJSON = config
        let configuration = try ProxyConfiguration.load(json: Array(config.utf8), environment: Self.environment)
        self.mode = mode
        manualClock = clock as? ManualDeliveryClock
        runtime = try ProxyRuntime.start(configuration, log: EventLog(format: .logfmt, minimumLevel: .info, sink: log.sink), clock: clock, auditClock: auditClock,
                                         listening: mode == .live)
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

    /// POSTs `body` to `path` with the dialect's credentials added (or `extra` instead); in
    /// live mode over HTTP with `session`.
    func send(path: String, body: [UInt8], headers extra: [(String, String)]? = nil, session: URLSession = .shared) async throws -> ProxyReply {
        let headers = [("Content-Type", "application/json")] + (extra ?? Self.credentials(for: path))
        switch mode {
        case .inProcess: return await sendInProcess(path: path, body: body, headers: headers)
        case .live: return try await sendOverHTTP(path: path, body: body, headers: headers, session: session)
        }
    }

    /// GETs `target` (`/metrics`, `/healthz`) in either mode.
    func get(_ target: String) async throws -> ProxyReply {
        switch mode {
        case .inProcess:
            let response = await runtime.service.handle(HTTPRequest(method: "GET", target: target, headers: [("Host", "127.0.0.1")]))
            return Self.reply(response.status, response.headers, response.body)
        case .live:
            let response = try await RawHTTPClient.send(port: port, target: target)
            return Self.reply(response.status, response.headers, response.body)
        }
    }

    private static func reply(_ status: Int, _ headers: [(name: String, value: String)], _ body: [UInt8]) -> ProxyReply {
        var out: [String: String] = ["content-length": String(body.count)]
        for header in headers { out[header.name.lowercased()] = header.value }
        return (status, out, body)
    }

    /// What a client's request looks like once the HTTP server has read it: a later header of
    /// the same name replaces an earlier one (as `URLRequest.setValue` does), `Host` and
    /// `Content-Length` are present, and the server adds `Content-Length` to the answer.
    private func sendInProcess(path: String, body: [UInt8], headers: [(String, String)]) async -> ProxyReply {
        var fields: [(name: String, value: String)] = [("Host", "127.0.0.1"), ("Content-Length", String(body.count))]
        for (name, value) in headers {
            if let i = fields.firstIndex(where: { $0.name.lowercased() == name.lowercased() }) { fields[i].value = value } else { fields.append((name, value)) }
        }
        let response = await runtime.service.handle(HTTPRequest(method: "POST", target: path, headers: fields, body: body))
        return Self.reply(response.status, response.headers, response.body)
    }

    private func sendOverHTTP(path: String, body: [UInt8], headers: [(String, String)], session: URLSession) async throws -> ProxyReply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
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
