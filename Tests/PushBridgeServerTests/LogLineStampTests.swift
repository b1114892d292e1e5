@testable import PushBridgeServer
import Testing

/// Issue 31, tenth pass: a logfmt line's `ts` is written from the stack into the line, not
/// from a string of its own. Every line is the line of the formatted timestamp, for moments
/// of four-digit years and of any other (which keep the string), before 1970 included.
struct LogLineStampTests {
    static let moments: [Int64] = [
        0, 1, -1, 999, -1_000, 1_796_000_000_123, 951_782_400_000, 253_402_300_799_999, 253_402_300_800_000,
        -62_167_219_200_000, -62_167_219_200_001, Int64.max / 4, Int64.min / 4,
    ]

    @Test func theLineOfTheMillisecondsIsTheLineOfTheFormattedTimestamp() {
        let fields = [LogField("request_id", .string("req_1")), LogField("ts", .string("x")), LogField("duration_ms", .double(1.5))]
        for format in [ProxyConfiguration.LogFormat.logfmt, .json] {
            let encoder = LogLineEncoder(format: format, maxValueBytes: 8192)
            for ms in Self.moments {
                let line = encoder.encode(milliseconds: ms, level: .info, message: "request", fields: fields)
                let formatted = encoder.encode(timestamp: RFC3339.format(milliseconds: ms), level: .info, message: "request", fields: fields)
                #expect(line == formatted, "\(format) \(ms)")
            }
        }
    }

    @Test func writeGivesFormatsBytesForAFourDigitYearAndNothingOtherwise() {
        for ms in Self.moments {
            let text = RFC3339.format(milliseconds: ms)
            var room = [UInt8](repeating: 0, count: RFC3339.usualLength)
            let wrote = room.withUnsafeMutableBufferPointer { RFC3339.write(milliseconds: ms, into: $0) }
            if text.utf8.count == RFC3339.usualLength, text.utf8.prefix(4).allSatisfy({ (0x30...0x39).contains($0) }) {
                #expect(wrote && room == Array(text.utf8), "\(ms): \(text)")
            } else {
                #expect(!wrote && room.allSatisfy { $0 == 0 }, "\(ms): \(text)")
            }
        }
    }
}
