import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushBridgeCore
import PushBridgeServer

extension ProxyHarness {
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
        try await request("GET", target)
    }

    /// `method` on `target` with `headers` as given (no credentials added) and `body`, in
    /// either mode; a POST or a body gets its `Content-Length`, as ``RawHTTPClient`` sends it.
    func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) async throws -> ProxyReply {
        switch mode {
        case .inProcess:
            var fields: [(name: String, value: String)] = [("Host", "127.0.0.1")] + headers.map { (name: $0.0, value: $0.1) }
            if !body.isEmpty || method == "POST" { fields.append(("Content-Length", String(body.count))) }
            let response = await runtime.service.handle(HTTPRequest(method: method, target: target, headers: fields, body: body))
            return Self.reply(response.status, response.headers, response.body)
        case .live:
            let response = try await RawHTTPClient.send(port: port, method: method, target: target, headers: headers, body: body)
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
}
