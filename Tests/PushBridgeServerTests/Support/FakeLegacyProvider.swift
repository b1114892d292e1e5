import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushBridgeCore
import PushBridgeServer

/// A legacy provider on 127.0.0.1 that answers as OneSignal or Pushwoosh do and records
/// every request exactly as it arrived. `behaviour` may answer instead (a stall, a refusal).
final class FakeLegacyProvider: Sendable {
    let dialect: DialectName
    let server: HTTPServer
    private let exchanges = ExchangeLog()

    init(_ dialect: DialectName, behaviour: @escaping @Sendable (HTTPRequest) async -> HTTPResponse? = { _ in nil }) throws {
        self.dialect = dialect
        let recorded = exchanges
        server = try HTTPServer(configuration: HTTPServerConfiguration()) { request in
            let response = await behaviour(request) ?? Self.answer(dialect, request)
            recorded.append(UpstreamExchange(path: request.target, headers: request.headers, body: request.body, response: response))
            return response
        }
    }

    var baseURL: String { "http://127.0.0.1:\(server.port)" }
    var all: [UpstreamExchange] { exchanges.all }

    /// What the provider answers a well-formed request.
    static func answer(_ dialect: DialectName, _ request: HTTPRequest) -> HTTPResponse {
        let id = UUID().uuidString.lowercased()
        let body: String
        switch dialect {
        case .onesignal: body = #"{"id":"\#(id)","external_id":null,"errors":[]}"#
        case .pushwoosh:
            let n = (try? JSONParser.parse(request.body))?.objectValue?["request"]?.objectValue?["notifications"]?.arrayValue?.count ?? 1
            let ids = (0..<n).map { _ in "\"\(UUID().uuidString.prefix(18))\"" }.joined(separator: ",")
            body = #"{"status_code":200,"status_message":"OK","response":{"Messages":[\#(ids)]}}"#
        case .buzzkit: body = #"{"id":"\#(id)","status":"accepted"}"#
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json; charset=utf-8"), ("X-Legacy-Provider", dialect.rawValue)], body: Array(body.utf8))
    }

    func stop() async { await server.stop(gracePeriod: .seconds(1)) }
}

/// Polls until `condition` holds or `seconds` pass (real time); returns whether it held.
func eventually(_ seconds: Double = 10, _ condition: @Sendable () -> Bool) async -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// Polls `probe` until it gives a value or `seconds` pass (real time); that value, or nil.
/// The one poll loop tests wait on conditions with (``eventually(_:_:)`` is its yes/no form
/// for conditions that need no `await`).
func firstValue<T>(within seconds: Double = 10, _ probe: () async throws -> T?) async rethrows -> T? {
    let end = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    repeat {
        if let value = try await probe() { return value }
        // The poll interval of this condition wait, not a wait for something to happen.
        try? await Task.sleep(for: .milliseconds(20))
    } while ContinuousClock.now < end
    return try await probe()
}

/// A URLSession that opens as many connections to one host as a burst test needs.
func makeBurstSession() -> URLSession {
    let c = URLSessionConfiguration.ephemeral
    c.httpMaximumConnectionsPerHost = 128
    c.timeoutIntervalForRequest = 120
    return URLSession(configuration: c)
}
