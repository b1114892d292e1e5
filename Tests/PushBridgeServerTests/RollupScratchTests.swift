import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The writer's fold makes its upserts in arrays reused from batch to batch (``AuditRollupScratch``,
/// issue 31's sixth allocation pass): batch after batch through one fold, its value arrays handed
/// back as the writer does after each (``AuditRollupFold/recycle(_:)``), writes exactly what a
/// new fold writes for the same batch, and a batch's statements still held when the next one
/// reuses their arrays keep their values.
struct RollupScratchTests {
    /// Batches of different sizes (more counter rows, then fewer: a reused array longer than
    /// the statement it is reused for), minutes and hours, requests, findings and sends.
    static let sizes = [450, 40, 260, 3, 120]

    @Test func batchAfterBatchThroughOneFoldWritesWhatANewFoldWrites() {
        var fold = AuditRollupFold()
        var start = 0
        var held: [(statements: [AuditStatement], expected: [AuditStatement])] = []
        for (batch, size) in Self.sizes.enumerated() {
            let steps = RollupFoldTests.batch(start..<start + size, of: 1_000) { "app-\($0 % 13)" }
            start += size
            fold.reset()
            RollupFoldTests.fold(steps, into: &fold)
            var fresh = AuditRollupFold()
            RollupFoldTests.fold(steps, into: &fresh)
            let expected = fresh.statements()
            // As the writer: appended to the batch's operations, run, handed back.
            var operations: [(index: Int, work: AuditOperation.Work)] = [(index: 0, work: .statement(AuditStatement(name: "a request", sql: "SELECT 1", values: [], requestId: nil)))]
            fold.forEachStatement { operations.append((index: operations.count, work: .rollup($0))) }
            let statements = operations.dropFirst().compactMap { operation -> AuditStatement? in
                if case .rollup(let statement) = operation.work { statement } else { nil }
            }
            #expect(statements.count == operations.count - 1)
            RollupFoldTests.expectSame(statements, expected, "batch \(batch)")
            fold.recycle(&operations)
            #expect(operations.count == 1, "batch \(batch): the request's own operation stays, the upserts are taken back")
            #expect(!fold.scratch.spareValues.isEmpty)
            #expect(fold.scratch.spareValues.count <= AuditRollupScratch.spareLimit)
            // Every second batch's statements are kept: their arrays are shared when reused.
            if batch % 2 == 0 { held.append((statements, expected)) }
        }
        for (index, kept) in held.enumerated() { RollupFoldTests.expectSame(kept.statements, kept.expected, "held batch \(index)") }
    }

    /// The fold's `statements()` (the recount's and the tests') and the writer's one by one are
    /// the same statements in the same order.
    @Test func theStatementsOneByOneAreTheStatementsArray() {
        let steps = RollupFoldTests.batch(0..<300, of: 300) { "app-\($0 % 7)" }
        var a = AuditRollupFold(), b = AuditRollupFold()
        RollupFoldTests.fold(steps, into: &a)
        RollupFoldTests.fold(steps, into: &b)
        var one: [AuditStatement] = []
        b.forEachStatement { one.append($0) }
        let all = a.statements()
        #expect(all.count >= 5 && all.contains { $0.name == "roll up requests hourly" } && all.contains { $0.name == "roll up findings hourly" })
        RollupFoldTests.expectSame(one, all, "one by one")
    }
}
