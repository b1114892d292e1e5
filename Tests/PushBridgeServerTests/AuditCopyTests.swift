import Foundation
import Testing
@testable import PushBridgeServer

/// `pushbridge audit copy`: an SQLite audit moved into PostgreSQL, idempotently.
@Suite(.serialized) struct AuditCopyTests {
    @Test func copiesEveryTableAndASecondRunChangesNothing() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await fillVariedAudit(store)
            await store.close()
            let uri = try PostgresTestCluster.start().makeDatabase()
            var calls: [(Int, Int)] = []
            let first = try AuditCopy.run(from: path, to: uri, pageSize: 7) { calls.append(($0, $1)) }
            #expect(first.map(\.table) == ["requests", "findings", "shadow_comparisons", "scheduled_sends"])
            #expect(first.map(\.source) == [30, 43, 6, 0])
            #expect(first.map(\.inserted) == first.map(\.source))
            #expect(calls.last.map { $0.0 == $0.1 && $0.1 == 79 } == true)
            #expect(calls.count > 10)

            let second = try AuditCopy.run(from: path, to: uri, pageSize: 7)
            #expect(second.map(\.source) == first.map(\.source))
            #expect(second.map(\.inserted) == [0, 0, 0, 0])

            let original = try AuditReader(path: path), copied = try AuditReader(path: uri)
            for table in ["requests", "findings", "shadow_comparisons"] {
                #expect(try copied.query("SELECT count(*) FROM \(table)") == original.query("SELECT count(*) FROM \(table)"), "\(table)")
            }
            #expect(try copied.report() == original.report())
            #expect(try copied.show(requestId: "R0005") == original.show(requestId: "R0005"))
        }
    }

    @Test func theCommandCopiesTwiceWithTheSameCountsAndNoBarOffATerminal() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await fillVariedAudit(store)
            await store.close()
            let uri = try PostgresTestCluster.start().makeDatabase()
            let first = try await CLIRunner.runAsync(["audit", "copy", "--from", path, "--to", uri])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("requests: 30 in the file, 30 copied"), "\(first.stdout)")
            #expect(!first.stderr.contains("█"))
            let second = try await CLIRunner.runAsync(["audit", "copy", "--from", path, "--to", uri])
            #expect(second.status == 0)
            #expect(second.stdout.contains("requests: 30 in the file, 0 copied"), "\(second.stdout)")
            let refused = try await CLIRunner.runAsync(["audit", "copy", "--from", path, "--to", "postgresql://u:secret@127.0.0.1/x"])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("PGPASSWORD"))
            #expect(!refused.stderr.contains("secret"))
        }
    }
}
