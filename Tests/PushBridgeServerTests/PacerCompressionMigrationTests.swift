import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Migration 105: the pacer's arrays are compressed with lz4 instead of `pglz`, and a database
/// written before it keeps its windows and holds, read back as they were, each rewritten with
/// lz4 by its app's next batch.
@Suite(.serialized) struct PacerCompressionMigrationTests {
    /// The compression of app `app`'s stored window and hold (`pglz`, `lz4`, or nil when inline).
    static func methods(_ db: PostgresConnection, _ app: String) throws -> [String?] {
        [try db.execute("SELECT pg_column_compression(slots) FROM pacer_windows WHERE app = $1", [app]).value(0, 0),
         try db.execute("SELECT pg_column_compression(slots) FROM pacer_holds WHERE app = $1", [app]).value(0, 0)]
    }

    @Test func anExistingDatabasesPacerRowsReadTheSameAndAreRewrittenWithLz4() throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        let db = try PostgresConnection(uri)
        try PostgresMigrator(PostgresSchema.migrations.filter { $0.number < PostgresSendPacer.lz4Number }).migrate(db)
        let settings = SharedPacerTests.settings(10_000, window: 1_000, queue: 10_000, maxWait: 10_000)
        var local = PacerWindow()
        let asks = (0..<600).map { PacerBatchQueue.Ask(app: "a", count: 1, now: 50_000 + Int64($0)) }
        let first = asks.map { local.reserve(count: $0.count, now: $0.now, settings: settings) }
        #expect(try PostgresSendPacer.reserve(asks, settings: settings, instance: "one", on: db) == first)
        #expect(try Self.methods(db, "a") == ["pglz", "pglz"], "written before the migration: compressed with pglz")
        let window = try db.execute("SELECT slots::text, spare_slots::text FROM pacer_windows").rows
        let held = try db.execute("SELECT slots::text FROM pacer_holds").rows

        #expect(try PostgresSchema.migrator.migrate(db) == [PostgresSendPacer.lz4Number])
        #expect(try db.execute("SELECT slots::text, spare_slots::text FROM pacer_windows").rows == window, "read as before")
        #expect(try db.execute("SELECT slots::text FROM pacer_holds").rows == held)
        #expect(try Self.methods(db, "a") == ["pglz", "pglz"], "not rewritten by the migration")
        let later = [PacerBatchQueue.Ask(app: "a", count: 2, now: 50_700)]
        let second = later.map { local.reserve(count: $0.count, now: $0.now, settings: settings) }
        #expect(try PostgresSendPacer.reserve(later, settings: settings, instance: "one", on: db) == second)
        #expect(try Self.methods(db, "a") == ["lz4", "lz4"], "its next batch writes it with lz4")
        #expect(try db.execute("SELECT slots::text FROM pacer_windows").value(0, 0) == "{" + local.slots.all.map(String.init).joined(separator: ",") + "}")
    }

    @Test func aNewDatabaseCompressesThePacersArraysWithLz4() throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        try PostgresLink(uri: uri, label: "test").run { try PostgresSchema.apply(on: $0) }
        let db = try PostgresConnection(uri)
        let columns = try db.execute("""
            SELECT attrelid::regclass::text || '.' || attname || '=' || attcompression::text FROM pg_attribute
            WHERE attrelid IN ('pacer_windows'::regclass, 'pacer_holds'::regclass) AND attname IN ('slots', 'spare_slots') ORDER BY 1
            """).rows.map { $0[0] ?? "" }
        #expect(columns == ["pacer_holds.slots=l", "pacer_windows.slots=l", "pacer_windows.spare_slots=l"])
    }
}
