import Foundation
import Testing
@testable import PushBridgeServer

struct AuditCommandTests {
    @Test func listShowAndPruneRunAgainstAnAudit() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            try await store.record(sampleEntry("CMD1"), sampleCompletion())
            #expect(await AuditCommand.run(arguments: ["list", "--db", path, "--limit", "5", "--outcome", "forwarded", "--app", "app-1"]) == 0)
            #expect(await AuditCommand.run(arguments: ["show", "CMD1", "--db", path]) == 0)
            #expect(await AuditCommand.run(arguments: ["show", "MISSING", "--db", path]) == 1)
            #expect(await AuditCommand.run(arguments: ["prune", "--older-than-days", "1", "--db", path]) == 0)
            #expect(try store.reader.list().isEmpty)
            #expect(await AuditCommand.run(arguments: ["list", "--bogus", "1"]) == 2)
            #expect(await AuditCommand.run(arguments: ["prune"]) == 2)
            await store.close()
        }
    }

    @Test func tablesAlignAndListNewestFirst() throws {
        let text = AuditTable.columns([["A", "BB"], ["CCC", "D"]])
        #expect(text == "A    BB\nCCC  D\n")
    }
}
