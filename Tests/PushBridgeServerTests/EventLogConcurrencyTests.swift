import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

struct EventLogConcurrencyTests {
    static let writers = 8
    static let linesPerWriter = 250

    /// Lines from 8 tasks into one file through the `write(2)` sink: every line whole.
    @Test func concurrentWritersToAFileProduceOnlyWholeLines() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("eventlog-\(UUID().uuidString).log").path
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { unlink(path) }
        let log = EventLog(format: .logfmt, sink: EventLog.fileDescriptor(fd))
        await Self.writeConcurrently(log)
        close(fd)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        Self.expectWholeLines(text)
    }

    /// A sink that hands each line over in two halves, yielding in between, can only stay
    /// whole if the log serializes its calls.
    @Test func theLogSerializesSinkCalls() async {
        let buffer = LineCollector()
        let log = EventLog(format: .json, sink: { line in
            let middle = line.index(line.startIndex, offsetBy: line.count / 2)
            buffer.append(line[..<middle])
            sched_yield()
            buffer.append(line[middle...])
        })
        await Self.writeConcurrently(log)
        Self.expectWholeLines(buffer.output, json: true)
    }

    static func writeConcurrently(_ log: EventLog) async {
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for i in 0..<linesPerWriter {
                        log.info("line", ["writer": .int(Int64(writer)), "i": .int(Int64(i)), "pad": .string(String(repeating: "x y", count: 300))])
                    }
                }
            }
        }
    }

    static func expectWholeLines(_ text: String, json: Bool = false) {
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n")
        #expect(lines.count == writers * linesPerWriter)
        var seen = Set<String>()
        for line in lines {
            let pairs: [(key: String, value: String)]?
            if json {
                pairs = (try? JSONParser.parse(String(line)))?.objectValue.map { o in o.members.map { ($0.key, $0.value.stringValue ?? JSONWriter.string($0.value)) } }
            } else {
                pairs = LogfmtParser.parse(String(line))
            }
            guard let pairs, pairs.count == 6 else {
                Issue.record("torn line: \(line.prefix(80))")
                return
            }
            seen.insert(pairs[3].value + "/" + pairs[4].value)
        }
        #expect(seen.count == writers * linesPerWriter)
    }
}
