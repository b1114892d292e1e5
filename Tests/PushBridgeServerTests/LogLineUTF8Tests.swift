@testable import PushBridgeServer
import Testing

/// Issue 31: a logfmt value with scalars past ASCII is measured and quoted from its UTF-8
/// bytes, not escaped into a string of scalars first. Every scalar near the escaped ones (C1
/// controls, U+2028, U+2029, the other scalars led by 0xC2 and 0xE2 0x80), and others of two,
/// three and four bytes, alone and among text, give the line the general path gives.
struct LogLineUTF8Tests {
    static let scalars: [Unicode.Scalar] = (Array(0x7E...0xA1) + Array(0x2010...0x202F) + [0xE9, 0x300, 0x7FF, 0x800, 0x2014, 0x20AC, 0xFEFF, 0xFFFD, 0x1F680, 0x10FFFF])
        .compactMap(Unicode.Scalar.init)

    @Test func everyScalarIsWrittenAsTheGeneralPathWritesIt() {
        let encoder = LogLineEncoder(format: .logfmt, maxValueBytes: 8192)
        for scalar in Self.scalars {
            let c = String(Character(scalar))
            for text in [c, "a\(c)b", "\(c)\(c) x", "say \"\(c)\"\n", "é\(c)=", "\(c)\u{85}\u{2028}"] {
                let line = encoder.encode(timestamp: "T", level: .info, message: "m", fields: [LogField("v", .string(text)), LogField("w", "x")])
                #expect(line == "ts=T level=info msg=m v=\(LogLineEncoder.logfmtValue(text)) w=x\n", "U+\(String(scalar.value, radix: 16)) in \(text.debugDescription)")
            }
        }
    }

    @Test func aLongReasonWithAnEmDashIsTheGeneralPathsToo() {
        let reason = String(repeating: #"segment "seg_1" — add "seg_1": "<id>" to the map; "#, count: 20)
        let line = LogLineEncoder(format: .logfmt, maxValueBytes: 8192).encode(timestamp: "T", level: .warning, message: "translation finding",
                                                                               fields: [LogField("reason", .string(reason))])
        #expect(line == #"ts=T level=warning msg="translation finding" reason="# + LogLineEncoder.logfmtValue(reason) + "\n")
    }
}
