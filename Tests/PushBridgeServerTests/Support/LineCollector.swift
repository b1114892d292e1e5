import PushBridgeServer
import Synchronization

/// An ``EventLog`` sink that keeps what it is given, for tests to read back.
final class LineCollector: Sendable {
    private let text = Mutex("")

    /// The sink to hand to the log.
    var sink: EventLog.Sink { { line in self.append(line[...]) } }

    /// Appends text as it comes.
    func append(_ part: Substring) { text.withLock { $0 += part } }

    /// Everything written so far.
    var output: String { text.withLock { $0 } }

    /// The lines written so far, without their `\n` (the output must end with one).
    var lines: [String] {
        let all = output
        guard !all.isEmpty else { return [] }
        return all.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
