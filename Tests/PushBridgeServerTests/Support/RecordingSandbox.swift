import Foundation
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
