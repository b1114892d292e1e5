@testable import PushBridgeServer
import Testing

/// The logfmt encoder writes ASCII values on bytes; it must give exactly what the general
/// (Unicode scalar) path gives, for every ASCII character in every position.
struct LogLineFastPathTests {
    private let encoder = LogLineEncoder(format: .logfmt, maxValueBytes: 8192)

    private func value(in line: String) -> Substring {
        let marker = " v="
        let start = line.range(of: marker)!.upperBound
        return line[start..<line.index(before: line.endIndex)]
    }

    @Test func everyASCIICharacterIsWrittenAsTheGeneralPathWritesIt() {
        for byte in UInt8(0)..<0x80 {
            let c = String(decoding: [byte], as: UTF8.self)
            for text in [c, "a\(c)b", "\(c)\(c) x", "say \"\(c)\""] {
                let line = encoder.encode(timestamp: "T", level: .warning, message: "m", fields: [LogField("v", .string(text))])
                #expect(value(in: line) == Substring(LogLineEncoder.logfmtValue(text)), "byte \(byte) in \(text.debugDescription)")
                #expect(line.filter { $0 == "\n" }.count == 1)
            }
        }
    }

    @Test func messagesWithQuotesAndNonASCIIValuesStayOnOneQuotedLine() {
        let reason = #"top-level key outside the "request" envelope; Pushwoosh reads only "request""#
        let line = encoder.encode(timestamp: "T", level: .warning, message: "translation finding",
                                  fields: [LogField("reason", .string(reason)), LogField("v", .string("Zoë\u{2028}x"))])
        #expect(line == #"ts=T level=warning msg="translation finding" reason="top-level key outside the \"request\" envelope; Pushwoosh reads only \"request\"" v="Zoë\u2028x""# + "\n")
    }
}
