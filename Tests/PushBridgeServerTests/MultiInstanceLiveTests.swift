import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Several real `pushbridge serve` processes on one PostgreSQL database and one recording
/// upstream: pacing shared by all of them, a scheduled start sent once whichever instance
/// took it, a dead instance's open rows settled by the survivors, and one report over all.
@Suite(.serialized) struct MultiInstanceLiveTests {
    static let path = ProxyPacingLiveTests.startPath
    static let upstreamPath = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes"
    static let headers = [("Authorization", "Key \(ProxyHarness.oneSignalKey)"), ("Content-Type", "application/json")]

    /// Sends one OneSignal start to `port` (waiting as long as pacing takes); the status and
    /// request id (-1 and nil when no answer came).
    static func start(_ port: UInt16, _ activity: String, session: URLSession) async -> (status: Int, requestId: String?) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = "POST"
        request.httpBody = Data(ProxyPacingLiveTests.startBody(activity))
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        guard let (_, response) = try? await session.data(for: request), let http = response as? HTTPURLResponse else { return (-1, nil) }
        return (http.statusCode, http.value(forHTTPHeaderField: "x-pushbridge-request-id"))
    }

    @Test func threeInstancesTogetherNeverSendMoreThanTheWindowAllowsAndTheReportCountsThemAll() async throws {
        // 5 sends per 500 ms window, for every instance together. The margin is what a send may
        // take from its slot to the upstream's recording before it crowds the next window: the
        // pacer rules on grant times, the window below is measured on arrivals, so the margin
        // stands for the machine, not the proxy (400 ms and then 1 s were each seen too little
        // once, the second with two full test runs and a build from scratch beside it).
        let fleet = try InstanceFleet(configuration: InstanceFleet.standard.with { $0.delivery = .init(sendsPerWindow: 5, windowMs: 500, marginMs: 2000, queueLimit: 100, maxWaitMs: 60000) })
        defer { Task { await fleet.shutDown() } }
        let ports = try await ["a", "b", "c"].asyncMap { try await fleet.start($0).port }
        let session = makeBurstSession()
        // One send through each instance first, so the burst does not wait on connections opening.
        for (i, port) in ports.enumerated() { #expect(await Self.start(port, "warm_\(i)", session: session).status == 201) }
        let replies = await withTaskGroup(of: (Int, String?).self) { group in
            for i in 0..<36 {
                group.addTask { await Self.start(ports[i % 3], "burst_\(i)", session: session) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies.count == 36 && replies.allSatisfy { $0.0 == 201 }, "\(replies.map(\.0))")
        let arrivals = fleet.arrivals(at: Self.upstreamPath)
        #expect(arrivals.count == 39)
        var fullest = 0
        for (i, first) in arrivals.enumerated() {
            fullest = max(fullest, arrivals[i...].prefix { $0 < first + .milliseconds(500) }.count)
        }
        #expect(fullest <= 5, "\(fullest) sends reached the upstream within one 500 ms window")
        #expect(!fleet.upstream.all.contains { $0.response.status == 429 })
        // 39 sends at 5 per window: 7 windows (of 2,500 ms with the margin) after the first.
        #expect(arrivals.last! - arrivals.first! >= .milliseconds(7 * 2500 - 1000))
        // Every request is audited, completed, by the instance that took it.
        #expect(await eventually(10) { (try? fleet.count("outcome <> 'pending'")) == 39 })
        for name in ["a", "b", "c"] {
            #expect(try fleet.count("instance_name = $1", [name]) == 13, "instance \(name)")
        }
        let report = try await CLIRunner.runAsync(["report", "--db", fleet.uri, "--format", "json"])
        #expect(report.status == 0, "\(report.stderr)")
        let total = (try? JSONParser.parse(Array(report.stdout.utf8)))?.objectValue?["total_requests"]
        #expect(total == .int(39), "the report over the shared database: \(report.stdout.prefix(300))")
        await fleet.shutDown()
    }

    @Test func aScheduledStartTakenByAnInstanceKilledBeforeItsTimeReachesTheUpstreamOnce() async throws {
        let fleet = try InstanceFleet(configuration: InstanceFleet.standard.with { $0.delivery = .init(backoffBaseMs: 50, backoffMaxMs: 100) })
        defer { Task { await fleet.shutDown() } }
        let a = try await fleet.start("a")
        try await fleet.start("b")
        // send_date has minutes only: the next whole minute at least 3 s ahead.
        let now = Int64(Date().timeIntervalSince1970)
        let sendAt = ((now + 3 + 59) / 60) * 60
        let reply = try await RawHTTPClient.send(port: a.port, method: "POST", target: "/json/1.3/startLiveActivity",
                                                 headers: [("Content-Type", "application/json")], body: CrashSafetyTests.scheduledBody(sendAt: sendAt))
        #expect(reply.status == 200 && reply.text.contains("sch_"), "\(reply.status) \(reply.text)")
        #expect(try fleet.value("SELECT created_by FROM scheduled_starts") == "a")
        try await fleet.kill("a")
        let sendPath = "/apps/app_3f9c2b/activities/activity/FoodDeliveryAttributes"
        #expect(await eventually(Double(sendAt - now) + 30) { fleet.arrivals(at: sendPath).count >= 1 }, "the start never reached the upstream")
        #expect(await eventually(10) { (try? fleet.value("SELECT state FROM scheduled_starts")) == "sent" })
        #expect(try fleet.value("SELECT claimed_by FROM scheduled_starts") == "b")
        // A's heartbeat has stopped: once B took A over, nothing is left to send again.
        #expect(await eventually(20) { (try? fleet.value("SELECT count(*) FROM instances WHERE name = 'a'")) == "0" })
        // The takeover is the event that could send it again (a start it finds `sending` goes back
        // to `pending`): after it the start is still `sent`, so no scheduler can claim it again.
        #expect(try fleet.value("SELECT state FROM scheduled_starts") == "sent", "the takeover made the sent start claimable again")
        #expect(fleet.arrivals(at: sendPath).count == 1, "the start reached the upstream more than once")
        #expect(try fleet.value("SELECT body FROM scheduled_starts") == nil, "the body with device ids is deleted once sent")
        #expect(await eventually(10) { (try? fleet.count("outcome = 'sent'")) == 1 })
        await fleet.shutDown()
    }

    @Test func aKilledInstancesWaitingSendsStopHoldingTheSharedWindowOnceItIsTakenOver() async throws {
        // One send per 5 s window for all instances together: 12 starts through A take a minute.
        let fleet = try InstanceFleet(configuration: InstanceFleet.standard.with { $0.delivery = .init(sendsPerWindow: 1, windowMs: 5000, marginMs: 0, queueLimit: 100, maxWaitMs: 65000) })
        defer { Task { await fleet.shutDown() } }
        let a = try await fleet.start("a")
        let b = try await fleet.start("b")
        let session = makeBurstSession()
        let waiting = Task {
            await withTaskGroup(of: Void.self) { group in
                for i in 0..<12 { group.addTask { _ = await Self.start(a.port, "waiting_\(i)", session: session) } }
            }
        }
        let granted: @Sendable () -> Int = { (try? fleet.value("SELECT sum(cardinality(slots)) FROM pacer_windows")).flatMap { $0 }.flatMap { Int($0) } ?? 0 }
        #expect(await eventually(30) { granted() == 12 }, "A never held 12 grants: \(granted())")
        let lastGrantOfA = Int64(try fleet.value("SELECT max(s) FROM pacer_windows, unnest(slots) AS s") ?? "") ?? 0
        try await fleet.kill("a")
        // B takes A over within dead_after_ms (1.5 s) and a heartbeat.
        #expect(await eventually(20) { (try? fleet.value("SELECT count(*) FROM instances WHERE name = 'a'")) == "0" }, "B never took A over")
        let afterTakeover = Int64(Date().timeIntervalSince1970 * 1000)
        let later = try fleet.value("SELECT count(*) FROM pacer_windows, unnest(slots) AS s WHERE s > $1::bigint", [String(afterTakeover)])
        #expect(later == "0", "the shared window still counts \(later ?? "?") sends A was waiting to make when it was killed")
        #expect(await eventually(5) { fleet.log("b").contains("pacer_slots_released=") }, "B's log does not say it released A's slots")
        // B's own send goes out at the next free slot, not after the last of A's that will never be sent.
        let reply = await Self.start(b.port, "after_takeover", session: session)
        let answeredAt = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(reply.status == 201)
        #expect(answeredAt < lastGrantOfA, "B's send waited behind A's dead grants (answered at \(answeredAt), A's last grant \(lastGrantOfA))")
        waiting.cancel()
        await fleet.shutDown()
    }

    @Test func aKilledInstancesPendingRowsBecomeUnknownWithoutItsRestartAndEveryAnswerIsAudited() async throws {
        // A slow upstream, so a kill finds requests in flight.
        let fleet = try InstanceFleet(configuration: InstanceFleet.standard.with { $0.delivery = .init(sendsPerWindow: 100_000, queueLimit: 1000) }, upstreamDelay: .milliseconds(400))
        defer { Task { await fleet.shutDown() } }
        let a = try await fleet.start("a")
        let b = try await fleet.start("b")
        let load = CrashLoad()
        load.setPort(a.port)
        let clients = Task { await load.run(clients: 4, limit: .seconds(60)) }
        #expect(await eventually(20) { load.all.count >= 8 && ((try? fleet.count("outcome = 'pending' AND instance_name = 'a'")) ?? 0) > 0 })
        try await fleet.kill("a")
        let pendingAtKill = try fleet.count("outcome = 'pending' AND instance_name = 'a'")
        #expect(pendingAtKill > 0, "the kill found no request in flight")
        load.setPort(b.port)
        // B marks A's open rows unknown: within dead_after_ms (1.5 s) and a heartbeat.
        #expect(await eventually(15) { (try? fleet.count("outcome = 'pending' AND instance_name = 'a'")) == 0 })
        #expect(try fleet.count("outcome = 'unknown' AND instance_name = 'a'") >= pendingAtKill)
        #expect(fleet.log("b").contains("instance stopped beating"))
        #expect(await eventually(20) { load.all.count >= 30 })
        load.stop()
        await clients.value
        // Every complete answer has a completed row that says the same.
        var mismatched: [String] = []
        for answer in load.all {
            let row = try PostgresConnection(fleet.uri).execute("SELECT outcome, response_status FROM requests WHERE request_id = $1", [answer.requestId])
            if row.value(0, 0) == "pending" || row.value(0, 0) == "unknown" || row.value(0, 1) != String(answer.status) {
                mismatched.append("\(answer.requestId): answered \(answer.status), audit \(row.value(0, 0) ?? "none") \(row.value(0, 1) ?? "-")")
            }
        }
        #expect(mismatched.isEmpty, "\(mismatched.prefix(5))")
        await fleet.shutDown()
    }
}

extension Array {
    /// `transform` on each element in order, awaiting each.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}
