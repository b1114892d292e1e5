import Synchronization
import Testing
@testable import PushBridgeServer

/// A batch of lines that writes nothing (every finding line of a request held back by the
/// limiter, or all below the level) neither reads the clock nor makes a timestamp (issue 31's
/// allocations per request), and writes nothing; a batch with one line to write is as before.
struct EventLogNothingToWriteTests {
    /// A clock that counts its reads.
    final class CountingClock: Sendable {
        private let reads = Mutex(0)
        var count: Int { reads.withLock { $0 } }
        func now() -> Int64 {
            reads.withLock { $0 += 1 }
            return 1_795_000_000_123
        }
    }

    @Test func aBatchWithNothingToWriteReadsNoClockAndWritesNothing() {
        let collector = LineCollector()
        let clock = CountingClock()
        let log = EventLog(format: .logfmt, minimumLevel: .info, clock: { clock.now() }, sink: collector.sink)
        log.log("translation finding", leveled: [])
        log.log("translation finding", leveled: [(.debug, [LogField("field", .string("a"))])])
        #expect(clock.count == 0)
        #expect(collector.lines.isEmpty)
        log.log("translation finding", leveled: [(.debug, [LogField("field", .string("a"))]), (.warning, [LogField("field", .string("b"))])])
        #expect(clock.count == 1)
        #expect(collector.lines.count == 1)
        #expect(collector.output.hasPrefix("ts=\(RFC3339.format(milliseconds: 1_795_000_000_123)) level=warning msg=\"translation finding\" field=b\n"))
    }
}
