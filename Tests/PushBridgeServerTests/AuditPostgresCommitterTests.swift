import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The PostgreSQL writer's `COMMIT` is waited for apart from the next batch's statements
/// (``AuditPostgresCommitter``), on the test cluster: a caller is answered only with what its
/// `COMMIT` did, so one that fails at the commit fails every operation of its batch, and the
/// store goes on writing.
@Suite(.serialized) struct AuditPostgresCommitterTests {
    @Test(arguments: [true, false]) func aBatchWhoseCommitFailsFailsAsAWholeAndTheStoreGoesOn(overlapped: Bool) async throws {
        let uri = try PostgresTestCluster.start().makeDatabase()
        var configuration = AuditStoreConfiguration()
        configuration.postgresOverlappedCommits = overlapped
        let store = try AuditStore(path: uri, configuration: configuration)
        // A deferred constraint trigger: the row of request BAD is refused at COMMIT, not before.
        try PostgresConnection(uri).executeScript("""
            CREATE FUNCTION refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF NEW.request_id = 'BAD' THEN RAISE EXCEPTION 'refused at commit'; END IF; RETURN NEW; END $$;
            CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER INSERT ON request_log DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION refuse_at_commit();
            """)
        let ids = (0..<20).map { $0 == 7 ? "BAD" : "C\($0)" }

        let results = try await AuditMultiRowTests.whileWriterWaits(uri, store, first: { try await store.begin(sampleEntry("FIRST")) },
                                                                    then: ids.map { id in { try await store.begin(sampleEntry(id)) } })
        // Every operation of the batch whose COMMIT failed is told so; none of its rows is there.
        for (id, error) in zip(ids, results) {
            guard case .postgres(let failure)? = error as? AuditError else {
                Issue.record("\(id) was answered \(String(describing: error)), not the commit's failure")
                continue
            }
            #expect(failure.message.contains("refused at commit"))
        }
        #expect(try store.reader.query("SELECT request_id FROM requests") == [[.text("FIRST")]])
        #expect(store.statistics.failedTransactions == 1)

        // The connection went back to the pool usable: the next writes commit.
        try await store.begin(sampleEntry("AFTER"))
        try await store.finish("AFTER", sampleCompletion())
        #expect(try store.reader.query("SELECT outcome FROM requests WHERE request_id = 'AFTER'") == [[.text("forwarded")]])
        await store.close()
    }
}
