import Foundation
import PushBridgeCore
import Synchronization
import Testing
@testable import PushBridgeServer

/// PostgreSQL as a dependency that fails: while it is down requests get 503 and nothing is
/// forwarded unaudited, `/healthz` says unhealthy and `/metrics` counts the refusals; when it
/// comes back the proxy serves again by itself.
@Suite(.serialized) struct PostgresOutageLiveTests {
    static let path = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes"
    static var body: [UInt8] {
        get throws { Array(try Data(contentsOf: CLIRunner.repoRoot.appendingPathComponent("fixtures/onesignal-start-interruption-level-and-subtitle/body.json"))) }
    }
    /// The standard apps before `upstream`, their audit `database`, pacing wide open.
    static func configuration(_ upstream: RecordingSandbox, database: String) -> TestConfiguration {
        TestConfiguration(upstream: upstream.baseURL).with {
            $0.auditDatabase = database
            $0.delivery = .init(sendsPerWindow: 100_000, queueLimit: 1000)
        }
    }

    @Test func aStoppedServerMeans503AndUnhealthyThenServiceResumesByItself() async throws {
        let cluster = try PostgresTestCluster.startPrivate()
        defer { cluster.stop() }
        let upstream = try RecordingSandbox(advancePerRequest: 0)
        let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(upstream, database: try cluster.makeDatabase()))
        let body = try Self.body
        #expect(try await proxy.send(path: Self.path, body: body).status == 201)
        #expect(try await proxy.get("/healthz").status == 200)

        try await offPool { try cluster.pause() }
        let sentBefore = upstream.all.count
        let refused = try await proxy.send(path: Self.path, body: body)
        #expect(refused.status == 503)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("audit database cannot be reached"))
        #expect(upstream.all.count == sentBefore)
        let unhealthy = try await firstValue { () async throws -> Int? in
            let status = try await proxy.get("/healthz").status
            return status == 503 ? status : nil
        }
        #expect(unhealthy == 503)
        let metrics = String(decoding: try await proxy.get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("pushbridge_audit_unavailable_total 1"))

        try await offPool { try cluster.resume() }
        let healthy = try await firstValue(within: 20) { () async throws -> Int? in
            let status = try await proxy.get("/healthz").status
            return status == 200 ? status : nil
        }
        #expect(healthy == 200)
        let served = try await firstValue(within: 20) { () async throws -> String? in
            let reply = try await proxy.send(path: Self.path, body: body)
            return reply.status == 201 ? reply.headers["x-pushbridge-request-id"] : nil
        }
        let id = try #require(served)
        #expect(try AuditReader(path: proxy.auditPath).show(requestId: id)?.outcome == "forwarded")
        await proxy.stop()
    }

    /// The shared pacer losing its table (its database failing while the audit still writes)
    /// is not a rate limit: the caller gets the dialect's 503 naming the shared state, the row
    /// says why, and nothing reaches OpenPush.
    @Test func aPacerThatCannotReachItsStateAnswers503NotAFakeRateLimit() async throws {
        let cluster = try PostgresTestCluster.startPrivate()
        defer { cluster.stop() }
        let upstream = try RecordingSandbox(advancePerRequest: 0)
        let database = try cluster.makeDatabase()
        let proxy = try ProxyHarness(.inProcess, configuration: Self.configuration(upstream, database: database))
        let body = try Self.body
        #expect(try await proxy.send(path: Self.path, body: body).status == 201)
        let sentBefore = upstream.all.count

        try PostgresConnection(database).execute("ALTER TABLE pacer_windows RENAME TO pacer_windows_gone")
        let refused = try await proxy.send(path: Self.path, body: body)
        let text = String(decoding: refused.body, as: UTF8.self)
        #expect(refused.status == 503, "\(text)")
        #expect(text.contains("shared state"), "\(text)")
        #expect(!text.contains("rate limit"))
        #expect(upstream.all.count == sentBefore)
        let id = try #require(refused.headers["x-pushbridge-request-id"])
        let row = try #require(try AuditReader(path: proxy.auditPath).show(requestId: id))
        #expect(row.outcome == "rejected")
        #expect(row.errorMessage?.contains("shared pacing state") == true)
        await proxy.stop()
    }

    @Test func aRestartUnderLoadForwardsNothingWithoutItsRow() async throws {
        let cluster = try PostgresTestCluster.startPrivate()
        defer { cluster.stop() }
        let upstream = try RecordingSandbox(advancePerRequest: 0)
        let proxy = try ProxyHarness(configuration: Self.configuration(upstream, database: try cluster.makeDatabase()))
        let body = try Self.body
        let headers = [("Content-Type", "application/json")] + ProxyHarness.credentials(for: Self.path)
        let state = LoadState()
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        while state.running.load(ordering: .relaxed) {
                            // A connection of its own per request, as a caller after an outage
                            // opens: a client's pool of kept-alive connections is not under test.
                            let reply = try? await RawHTTPClient.send(port: proxy.port, method: "POST", target: Self.path,
                                                                      headers: headers, body: body)
                            state.statuses.withLock { $0.append(reply?.status ?? -1) }
                        }
                    }
                }
            }
        }
        #expect(await eventually(60) { state.statuses.withLock { $0.filter { $0 == 201 }.count } >= 20 })
        try await offPool { try cluster.restart() }
        let servedBeforeRestart = state.statuses.withLock { $0.count }
        // Service resumes by itself: new successes after the restart. Five of them, not a rate:
        // on a loaded machine the restart itself takes seconds, and requests that arrived while
        // the server was down wait for their intent to be durable (each such caller gives up
        // after 10 s), so the time limit only bounds a service that never comes back.
        let resumed = await eventually(120) { state.statuses.withLock { $0.dropFirst(servedBeforeRestart).filter { $0 == 201 }.count } >= 5 }
        #expect(resumed, "answers after the restart, by status (-1: no answer within 10 s): \(state.histogram(after: servedBeforeRestart))")
        state.running.store(false, ordering: .relaxed)
        await load.value
        await proxy.stop()

        let reader = try AuditReader(path: proxy.auditPath)
        let receipts = upstream.all.compactMap { exchange in exchange.headers.first { $0.name.lowercased() == "x-pushbridge-request-id" }?.value }
        #expect(receipts.count >= 25)
        var missing: [String] = []
        for id in receipts where try reader.show(requestId: id) == nil { missing.append(id) }
        #expect(missing == [], "forwarded without a row")
        let forwarded = try reader.query("SELECT count(*) FROM requests WHERE outcome = 'forwarded'").first?.first?.integerValue ?? 0
        #expect(forwarded <= Int64(receipts.count))
        #expect(state.statuses.withLock { $0.filter { $0 == 201 }.count } <= Int(forwarded))
    }
}

/// What the load tasks share: whether to go on, and every status they got.
private final class LoadState: Sendable {
    let running = Atomic<Bool>(true)
    let statuses = Mutex<[Int]>([])

    /// How many answers of each status came after the first `skipped`, for a failure message.
    func histogram(after skipped: Int) -> [Int: Int] {
        statuses.withLock { Dictionary($0.dropFirst(skipped).map { ($0, 1) }, uniquingKeysWith: +) }
    }
}
