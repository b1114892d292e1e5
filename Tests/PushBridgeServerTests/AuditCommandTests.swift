import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

struct AuditCommandTests {
    @Test func listShowAndPruneRunAgainstAnAudit() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await store.record(sampleEntry("CMD1"), sampleCompletion())
            await store.close()
            let listed = try await CLIRunner.runAsync(["audit", "list", "--db", path, "--limit", "5", "--outcome", "forwarded", "--app", "app-1"])
            #expect(listed.status == 0 && listed.stdout.contains("CMD1"), "\(listed.stdout)\(listed.stderr)")
            #expect(try await CLIRunner.runAsync(["audit", "show", "CMD1", "--db", path]).status == 0)
            let listedJSON = try await CLIRunner.runAsync(["audit", "list", "--db", path, "--format", "json"])
            let rows = try #require(try JSONParser.parse(Array(listedJSON.stdout.utf8)).objectValue?["requests"]?.arrayValue, "\(listedJSON.stdout)")
            #expect(rows.first?.objectValue?["request_id"] == .string("CMD1") && rows.first?.objectValue?["outcome"] == .string("forwarded"))
            let shownJSON = try await CLIRunner.runAsync(["audit", "show", "CMD1", "--db", path, "--format", "json"])
            let shown = try #require(try JSONParser.parse(Array(shownJSON.stdout.utf8)).objectValue, "\(shownJSON.stdout)")
            #expect(shown["request_id"] == .string("CMD1") && shown["findings"]?.arrayValue?.count == 3 && shown["attempts"]?.arrayValue?.count == 1)
            let missing = try await CLIRunner.runAsync(["audit", "show", "MISSING", "--db", path])
            #expect(missing.status == 1 && missing.stderr.contains("no request MISSING"))
            #expect(try await CLIRunner.runAsync(["audit", "prune", "--older-than-days", "1", "--db", path]).status == 0)
            #expect(try AuditReader(path: path).list().isEmpty)
            let bogus = try await CLIRunner.runAsync(["audit", "list", "--bogus", "1"])
            #expect(bogus.status == 2 && bogus.stderr.contains("unknown option --bogus"))
            let prune = try await CLIRunner.runAsync(["audit", "prune"])
            #expect(prune.status == 2 && prune.stderr.contains("missing --older-than-days N"))
        }
    }
}

/// `audit list` speaks the vocabulary of `scheduled list` and `report`: apps by their
/// configured name, `--since` in the time formats every command takes.
@Suite(.serialized) struct AuditListVocabularyTests {
    @Test func listShowsTheAppNameAndSinceTakesEveryTimeFormat() async throws {
        let run = try ReadinessRun(readiness: .init())
        let id = try await run.send("vocabulary_1")
        let now = Int64(Date().timeIntervalSince1970)
        let past = now - 3600, future = now + 3600
        let iso = { (seconds: Int64) in TimestampConversionShim.iso(seconds) }
        for since in [String(past * 1000), String(past), iso(past), String(iso(past).dropLast(4)), "2026-01-01"] {
            let out = try await CLIRunner.runAsync(["audit", "list", "--db", run.proxy.auditPath, "--app", "os", "--since", since])
            let row = out.stdout.split(separator: "\n").first { $0.hasPrefix(id) }.map(String.init) ?? ""
            #expect(out.status == 0 && row.split(separator: " ").contains("os"), "--since \(since): \(out.stdout)\(out.stderr)")
        }
        for since in [String(future * 1000), String(future), iso(future)] {
            let out = try await CLIRunner.runAsync(["audit", "list", "--db", run.proxy.auditPath, "--since", since])
            #expect(out.status == 0 && out.stdout == "no requests\n", "--since \(since): \(out.stdout)")
        }
        let bySource = try await CLIRunner.runAsync(["audit", "list", "--db", run.proxy.auditPath, "--app", "app_3f9c2b"])
        #expect(bySource.stdout.contains(id), "the source app id no longer selects the app's rows")
        let shown = try await CLIRunner.runAsync(["audit", "show", id, "--db", run.proxy.auditPath])
        #expect(shown.stdout.contains("app              os\n"), "\(shown.stdout)")
        let bad = try await CLIRunner.runAsync(["audit", "list", "--db", run.proxy.auditPath, "--since", "last week"])
        #expect(bad.status == 2 && bad.stderr.contains("--since takes an ISO 8601 date"))
        await run.stop()
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` for Unix seconds.
enum TimestampConversionShim {
    static func iso(_ seconds: Int64) -> String {
        let f = ISO8601DateFormatter()
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
