import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// `GET /admin/report` on a real listener at 127.0.0.1: the token gate and the formats.
struct AdminServiceTests {
    @Test func reportNeedsTheAdminToken() async throws {
        try await withTemporaryAudit { path in
            try await KnownAudit.build(path)
            let service = AdminService(token: Secret("admin-test-token"), reader: try AuditReader(path: path))
            let server = try HTTPServer(configuration: HTTPServerConfiguration(), handler: service.handler)
            let missing = try await RawHTTPClient.send(port: server.port, target: "/admin/report?format=json")
            let wrong = try await RawHTTPClient.send(port: server.port, target: "/admin/report", headers: [("Authorization", "Bearer admin-test-tokeN")])
            let ok = try await RawHTTPClient.send(port: server.port, target: "/admin/report?format=json&app=app-a",
                                                  headers: [("Authorization", "Bearer admin-test-token")])
            let csv = try await RawHTTPClient.send(port: server.port, target: "/admin/report?format=csv", headers: [("Authorization", "Bearer admin-test-token")])
            let bad = try await RawHTTPClient.send(port: server.port, target: "/admin/report?format=pdf", headers: [("Authorization", "Bearer admin-test-token")])
            await server.stop(gracePeriod: .seconds(1))
            #expect(missing.status == 401 && wrong.status == 401)
            #expect(!missing.text.contains("admin-test-token") && !wrong.text.contains("admin-test-token"))
            #expect(ok.status == 200 && ok.header("Content-Type") == "application/json")
            #expect(try JSONParser.parse(ok.body).objectValue?["total_requests"] == .int(2))
            #expect(csv.status == 200 && csv.text.hasPrefix(ReportCSV.columns.joined(separator: ",")))
            #expect(bad.status == 400)
        }
    }
}
