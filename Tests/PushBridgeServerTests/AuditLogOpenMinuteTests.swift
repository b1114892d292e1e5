import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The writer's newest minute is open (``AuditLogMinutes``): its row is written when the minute
/// starts and holds its highest id only once a later minute starts, the writer closes or the
/// next writer opens after a crash, so a batch inside it writes nothing to `request_log_minutes`;
/// every window still lists exactly what the log holds, and the table equals the log's own
/// minutes after a close, after a crash's recovery and after pruning.
@Suite(.serialized) struct AuditLogOpenMinuteTests {
    static let m0 = AuditLogMinutesTests.m0

    /// Rows in write order, one batch each: minute 0, minute 1 over three batches with a late
    /// row of minute 0 among them, then minute 2 over three batches.
    static let rows: [(id: String, at: Int64)] = [
        ("O-1", m0 + 1_000), ("O-2", m0 + 61_000), ("O-3", m0 + 62_000), ("O-4", m0 + 30_000), ("O-5", m0 + 70_000),
        ("O-6", m0 + 121_000), ("O-7", m0 + 150_000), ("O-8", m0 + 125_000),
    ]

    static func table(_ database: SQLiteDatabase) throws -> [[SQLiteValue]] {
        try database.rows("SELECT minute, first_id, last_id FROM request_log_minutes ORDER BY minute")
    }

    static func id(_ database: SQLiteDatabase, _ requestId: String) throws -> SQLiteValue {
        try database.rows("SELECT id FROM request_log WHERE request_id = ?", [.text(requestId)]).first?.first ?? .null
    }

    static func record(_ store: AuditStore, _ id: String, at: Int64) async throws {
        try await store.record(sampleEntry(id, receivedAt: at), AuditLogMinutesTests.completion(.forwarded, at: at))
    }

    @Test func theNewestMinuteIsWrittenWhenItStartsAndWhenItCloses() async throws {
        try await withTemporaryDirectory("pushbridge-open-minute") { directory in
            let path = directory.path("audit.sqlite")
            let crashed = directory.path("crashed.sqlite")
            var configuration = AuditStoreConfiguration()
            // No checkpoint may run while the file is copied below.
            configuration.walAutocheckpointPages = 0
            let store = try AuditStore(path: path, configuration: configuration)
            for row in Self.rows { try await Self.record(store, row.id, at: row.at) }
            let database = try SQLiteDatabase(path: path)
            let log = try AuditLogMinutesTests.minutesOfLog(database)
            #expect(log.count == 3)
            // The closed minutes are the log's own; the newest holds its first row only: the two
            // batches after it wrote nothing here (each wrote the minute's row before).
            #expect(Array(try Self.table(database).dropLast()) == Array(log.dropLast()))
            let newest = try Self.id(database, "O-6")
            #expect(try Self.table(database).last == [.integer(Self.m0 / 60_000 + 2), newest, newest])
            try AuditLogMinutesTests.expectListsMatch(path, database)

            // The process "dies" here: its file and WAL as they are on disk, with no close
            // (copied by a child process: a copy in this one drops the writer's locks, and the
            // prune's close below would then delete the WAL under it, see `LiveDatabaseFiles`).
            try LiveDatabaseFiles.copy(path, to: crashed)
            let image = try SQLiteDatabase(path: crashed)
            let reopened = try AuditStore(path: crashed, configuration: configuration)
            // The next writer's start gives the open minute its highest id.
            #expect(try Self.table(image) == (try AuditLogMinutesTests.minutesOfLog(image)))
            #expect(try Self.table(image).last == [.integer(Self.m0 / 60_000 + 2), newest, try Self.id(image, "O-8")])
            try await Self.record(reopened, "O-9", at: Self.m0 + 170_000)
            await reopened.close()
            #expect(try Self.table(image) == (try AuditLogMinutesTests.minutesOfLog(image)))

            // `audit prune` (another process) deletes every row, the open minute's row with
            // them; the writer reads its minutes again and notes the next row's minute. A
            // connection opened after the prune and the writer's next commit reads them.
            let pruned = try await CLIRunner.runAsync(["audit", "prune", "--db", path, "--older-than-days", "1"])
            #expect(pruned.status == 0, "\(pruned.stderr)")
            #expect(try Self.table(database) == [])
            try await Self.record(store, "O-10", at: Self.m0 + 171_000)
            let after = try SQLiteDatabase(path: path)
            let last = try Self.id(after, "O-10")
            #expect(try Self.table(after) == [[.integer(Self.m0 / 60_000 + 2), last, last]])
            try await Self.record(store, "O-11", at: Self.m0 + 172_000)
            #expect(try Self.table(after) == [[.integer(Self.m0 / 60_000 + 2), last, last]])
            #expect(try Self.table(database) == (try Self.table(after)))
            await store.close()
            #expect(try Self.table(after) == (try AuditLogMinutesTests.minutesOfLog(after)))
            try AuditLogMinutesTests.expectListsMatch(path, after)
            #expect(try after.rows("SELECT count(*) FROM request_log") == [[.integer(2)]])
        }
    }
}
