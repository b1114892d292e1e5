import Testing
@testable import PushBridgeServer

/// The SQLite writer's low-water mark (``AuditOpenIntents``): never past an intent still open in
/// the file, whatever the transactions did.
struct AuditOpenIntentsTests {
    @Test func theMarkStopsBeforeTheOldestOpenIntentAndFollowsCommitsAndRollbacks() {
        var intents = AuditOpenIntents(settledThrough: 10)
        #expect(intents.settledThrough == 10)

        intents.opened("a", id: 11)
        intents.wroteSettled(id: 12)
        intents.opened("b", id: 13)
        #expect(intents.settledThrough == 10)
        intents.committed()
        #expect(intents.settledThrough == 10)

        // A rolled-back transaction's completion of `a` is undone: `a` is open again.
        intents.completed("a")
        #expect(intents.settledThrough == 12)
        intents.rolledBack()
        #expect(intents.settledThrough == 10)

        // Its intents were never written: the mark does not wait for them, nor count their ids.
        intents.opened("c", id: 14)
        intents.rolledBack()
        intents.completed("a")
        intents.completed("b")
        intents.committed()
        #expect(intents.settledThrough == 13)

        // An intent begun and completed in one transaction is never open.
        intents.opened("d", id: 15)
        intents.completed("d")
        intents.committed()
        #expect(intents.settledThrough == 15)
        #expect(intents.sinceMark == 5)
        intents.marked()
        #expect(intents.sinceMark == 0)
    }
}
