import Foundation
import PushBridgeCore
@testable import PushBridgeServer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 29 items 13 and 14 through the real `pushbridge serve` process: which side a user's
/// starts go to, as `pushbridge rollout where` and the admin page answer it, is where the
/// running proxy really placed that user's start; and a SIGHUP turns the admin listener on
/// (reachable with HTTP Basic, as a browser sends it) and off again without a restart.
@Suite(.serialized) struct RolloutWhereLiveTests {
    static let adminToken = "where-live-admin-token-5c1e"
    static let path = "/apps/app_3f9c2b/activities/activity/DeliveryAttributes"

    /// A OneSignal start of `activity` for `user`.
    static func start(_ user: String, _ activity: String) -> [UInt8] {
        Array(#"{"event":"start","activity_id":"\#(activity)","name":"Order","event_attributes":{"orderNumber":"1"},"event_updates":{"stage":"out"},"headings":{"en":"On the way"},"contents":{"en":"Soon"},"include_aliases":{"external_id":["\#(user)"]}}"#.utf8)
    }

    /// The external ids the starts a side received were for.
    static func users(_ exchanges: [UpstreamExchange]) -> [String] {
        exchanges.compactMap { try? JSONParser.parse($0.body).objectValue?["include_aliases"]?.objectValue?["external_id"]?.arrayValue?.first?.stringValue }
    }

    /// The `rollout where` answer's `side` line for `user`.
    static func cliSide(config: String, user: String, environment: [String: String]) async throws -> String? {
        let out = try await CLIRunner.runAsync(["rollout", "where", "os", "--config", config, "--user", user], environment: environment)
        #expect(out.status == 0, "\(out.stderr)")
        return out.stdout.split(separator: "\n").first { $0.hasPrefix("side ") }.map { $0.dropFirst(4).trimmingCharacters(in: .whitespaces) }
    }

    /// The admin listener's port from serve's latest `admin listener started` line.
    static func adminPort(_ log: String, after count: Int) -> UInt16? {
        let lines = log.split(separator: "\n").filter { $0.contains("msg=\"admin listener started\"") }
        guard lines.count > count, let fields = LogfmtParser.parse(String(lines[count])),
              let address = fields.first(where: { $0.0 == "address" })?.1 else { return nil }
        return address.split(separator: ":").last.flatMap { UInt16($0) }
    }

    /// The command's answer for a rolled-back rollout says so (with the percent and the bucket it
    /// would have had), prints the user's control characters visibly, answers in JSON, and
    /// names an app that is not configured.
    @Test func rolloutWhereSaysRolledBackEscapesTheUserAndNamesAnUnknownApp() async throws {
        let folder = try TemporaryDirectory("pushbridge-where-cli")
        let audit = folder.url("audit.sqlite").path
        let configuration = TestConfiguration(upstream: "http://127.0.0.1:9", apps: [TestApp.os]).with {
            $0.legacy = [.onesignal: "http://127.0.0.1:9"]
            $0.setMode(.rollout)
            $0.apps[0].rollout = .init(percent: 30)
            $0.auditDatabase = audit
        }
        let file = folder.url("pushbridge.json").path
        try configuration.json.write(toFile: file, atomically: true, encoding: .utf8)
        let store = try AuditStore(path: audit)
        await store.close()
        let hostile = "eve\u{1B}]0;owned\u{07}"
        let bucket = RolloutCohort.bucket(app: "os", key: "alias:external_id:\(hostile)").bucket
        let running = try await CLIRunner.runAsync(["rollout", "where", "os", "--config", file, "--user", hostile], environment: ProxyHarness.environment)
        #expect(running.status == 0 && !running.stdout.contains("\u{1B}") && running.stdout.contains("user        eve\\u{1B}]0;owned\\u{7}\n"), "\(running.stdout)")
        #expect(running.stdout.contains("bucket      \(bucket) of 0–99\n") && running.stdout.contains("stage       rollout 30%\n"), "\(running.stdout)")
        #expect(running.stdout.contains("side        \(bucket < 30 ? "OpenPush" : "the legacy provider")\n"), "\(running.stdout)")
        #expect(try AuditReader(path: audit).saveRollback(RolloutRollback(app: "os", at: 1_767_225_600_000, threshold: "max_openpush_error_rate", evidence: "6 of 20 failed")))
        let rolledBack = try await CLIRunner.runAsync(["rollout", "where", "app_3f9c2b", "--config", file, "--user", "alice", "--format", "json"], environment: ProxyHarness.environment)
        let answer = try #require(try JSONParser.parse(Array(rolledBack.stdout.utf8)).objectValue, "\(rolledBack.stdout) \(rolledBack.stderr)")
        #expect(answer["side"] == .string("the legacy provider") && answer["app"] == .string("os"), "\(answer)")
        #expect(answer["why"]?.stringValue?.hasPrefix("rolled back at 2026-01-01T00:00:00.000Z (max_openpush_error_rate)") == true, "\(answer)")
        let unknown = try await CLIRunner.runAsync(["rollout", "where", "nope", "--config", file, "--user", "alice"], environment: ProxyHarness.environment)
        #expect(unknown.status == 1 && unknown.stderr.contains("no app nope in") && unknown.stderr.contains("(apps: os)"), "\(unknown.stderr)")
    }

    @Test(.timeLimit(.minutes(3)))
    func rolloutWhereAndThePageAnswerWhereServePlacedEachUsersStartAndSIGHUPTurnsThePageOnAndOff() async throws {
        let openPush = try RecordingSandbox(), legacy = try FakeLegacyProvider(.onesignal)
        let folder = try TemporaryDirectory("pushbridge-where")
        var configuration = TestConfiguration(upstream: openPush.baseURL, apps: [TestApp.os]).with {
            $0.legacy = [.onesignal: legacy.baseURL]
            $0.setMode(.rollout)
            $0.apps[0].rollout = .init(percent: 50, fallbackToLegacy: false)
            $0.auditDatabase = folder.url("audit.sqlite").path
        }
        let file = folder.url("pushbridge.json").path
        try configuration.json.write(toFile: file, atomically: true, encoding: .utf8)
        let environment = ProxyHarness.environment.merging(["ADMIN_TOKEN": Self.adminToken]) { $1 }
        let logPath = folder.url("serve.log").path
        let serve = try await ServeProcess.start(config: file, environment: environment, logPath: logPath)
        let users = (0..<16).map { "where_user_\($0)" }
        for (i, user) in users.enumerated() {
            let reply = try await RawHTTPClient.send(port: serve.port, method: "POST", target: Self.path,
                                                     headers: [("Content-Type", "application/json")] + ProxyHarness.credentials(for: Self.path),
                                                     body: Self.start(user, "where_\(i)"))
            #expect(reply.status < 500, "\(user): \(reply.status)")
        }
        let onOpenPush = Set(Self.users(openPush.all)), onLegacy = Set(Self.users(legacy.all))
        #expect(onOpenPush.count + onLegacy.count == users.count && !onOpenPush.isEmpty && !onLegacy.isEmpty, "\(onOpenPush) \(onLegacy)")
        // The command, run beside the proxy on the same file, names the side each user's start went to.
        for user in users {
            let side = try await Self.cliSide(config: file, user: user, environment: environment)
            #expect(side == (onOpenPush.contains(user) ? "OpenPush" : "the legacy provider"), "\(user): \(side ?? "no side line")")
        }

        // SIGHUP with an admin object: the listener starts, and a browser's Basic credentials open the page.
        configuration.admin = .init(tokenEnv: "ADMIN_TOKEN")
        try configuration.json.write(toFile: file, atomically: true, encoding: .utf8)
        kill(serve.process.processIdentifier, SIGHUP)
        let port = try #require(await firstValue(within: 20) { Self.adminPort((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "", after: 0) })
        let basic = ("Authorization", "Basic " + Data("admin:\(Self.adminToken)".utf8).base64EncodedString())
        let bare = try await RawHTTPClient.send(port: port, target: "/admin/")
        #expect(bare.status == 401 && bare.header("WWW-Authenticate")?.hasPrefix("Basic realm=\"PushBridge admin\"") == true)
        for user in users.prefix(6) {
            let page = try await RawHTTPClient.send(port: port, target: "/admin/?where=os&user=\(user)", headers: [basic])
            let side = onOpenPush.contains(user) ? "OpenPush" : "the legacy provider"
            #expect(page.status == 200 && page.text.contains("<dt>side</dt><dd>\(side)</dd>"), "\(user): \(page.status)")
        }

        // SIGHUP without it: the listener stops, the proxy keeps serving.
        configuration.admin = nil
        try configuration.json.write(toFile: file, atomically: true, encoding: .utf8)
        kill(serve.process.processIdentifier, SIGHUP)
        let stopped = await firstValue(within: 20) { ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").contains("msg=\"admin listener stopped\"") ? true : nil }
        #expect(stopped == true)
        let refused = await firstValue(within: 10) { (try? await RawHTTPClient.send(port: port, target: "/admin/", headers: [basic])) == nil ? true : nil }
        #expect(refused == true, "the admin port still answers after the reload that removed admin")
        let healthz = try await RawHTTPClient.send(port: serve.port, target: "/healthz")
        #expect(healthz.status == 200)
        #expect(try await serve.terminate() == 0)
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(!log.contains(Self.adminToken), "the admin token reached the log")
    }
}
