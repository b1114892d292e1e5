@testable import PushBridgeServer
import Testing

/// Issue 31, ninth pass: a logfmt line is measured, then written once into the string's own
/// storage. Every line is byte for byte what the byte-array writer before gave (copied here as
/// the oracle: the general path for non-ASCII and typed values, the byte path for ASCII), and
/// the access line's fields on the stack give the line their array gave, secrets redacted alike.
struct LogLineExactLengthTests {
    /// The writer before, over the fields as the encoder lays them out (`ts`, `level`, `msg`, then the rest).
    static func oldLine(_ fields: [LogField]) -> String {
        var line: [UInt8] = []
        for (i, field) in fields.enumerated() {
            if i > 0 { line.append(UInt8(ascii: " ")) }
            line.append(contentsOf: field.key.utf8)
            line.append(UInt8(ascii: "="))
            switch field.value {
            case .string(let text) where text.utf8.allSatisfy({ $0 < 0x80 }):
                line.append(contentsOf: LogLineEncoder.logfmtValue(text).utf8)
            case .int(let number):
                line.append(contentsOf: String(number).utf8)
            case let value:
                line.append(contentsOf: LogLineEncoder.logfmtValue(value.description).utf8)
            }
        }
        line.append(UInt8(ascii: "\n"))
        return String(decoding: line, as: UTF8.self)
    }

    static let values: [LogValue] = [
        .string(""), .string("-"), .string("req_01JDZ8Q6R2W9XK4M7N3P5T8V1B"), .string("a b"), .string("k=v"),
        .string("say \"hi\" \\ there"), .string("tab\tnew\nline\rcr"), .string("\u{0}\u{1}\u{1F}\u{7F}"),
        .string("Zoë\u{2028}x"), .string("ünïcödé ∂ 🚀"), .string(String(repeating: "\"\u{1}", count: 300)),
        .int(0), .int(-42), .int(Int64.max), .int(Int64.min), .double(0.5), .double(-1234.125), .double(.nan),
        .double(.infinity), .double(-.infinity), .bool(true), .bool(false),
    ]

    @Test func everyLineIsWhatTheByteArrayWriterWrote() {
        let encoder = LogLineEncoder(format: .logfmt, maxValueBytes: 8192)
        for (i, value) in Self.values.enumerated() {
            for other in [Self.values[(i + 7) % Self.values.count], .string("plain")] {
                let fields = [LogField("v", value), LogField("w", other), LogField("msg", .string("again"))]
                let line = encoder.encode(timestamp: "2026-12-07T11:20:00.000Z", level: .warning, message: "m e", fields: fields)
                let laidOut = [LogField("ts", .string("2026-12-07T11:20:00.000Z")), LogField("level", .string("warning")), LogField("msg", .string("m e"))]
                    + [LogField("v", value), LogField("w", other), LogField("msg_2", .string("again"))]
                #expect(line == Self.oldLine(laidOut), "\(value) then \(other)")
            }
        }
    }

    /// The texts of doubles, bools and non-ASCII strings are made while measuring and kept
    /// for the write (review of the ninth pass): a line with several of them, among values
    /// written from themselves, in every rotation, is byte for byte the old writer's line.
    @Test func textsMadeWhileMeasuringAreWrittenInTheirPlaces() {
        let encoder = LogLineEncoder(format: .logfmt, maxValueBytes: 8192)
        let mixed: [LogValue] = [
            .double(1.23456), .string("plain"), .bool(true), .string("ünï \"q\"\u{1}"), .int(-7), .string("needs quotes"),
            .double(.nan), .string("Zoë\u{2028}x"), .bool(false), .double(-0.0), .string(""), .double(1e300),
        ]
        for shift in mixed.indices {
            let values = Array(mixed[shift...] + mixed[..<shift])
            let fields = values.enumerated().map { LogField("f\($0.offset)", $0.element) }
            let line = encoder.encode(timestamp: "2026-12-07T13:20:00.000Z", level: .info, message: "müx", fields: fields)
            let laidOut = [LogField("ts", .string("2026-12-07T13:20:00.000Z")), LogField("level", .string("info")), LogField("msg", .string("müx"))] + fields
            #expect(line == Self.oldLine(laidOut), "rotation \(shift)")
        }
    }

    @Test func theAccessLineFromTheStackIsTheLineOfItsArray() {
        let lines = LineCollector()
        let log = EventLog(clock: { 1_796_000_000_123 }, sink: lines.sink)
        log.access(requestId: "req_1", method: "POST", path: "/api/v1/notifications?x=1", status: 200, durationMs: 1.23456,
                   dialect: .onesignal, app: nil, outcome: "sent", remote: "127.0.0.1")
        log.log(.info, "request", [
            LogField("request_id", .string("req_1")), LogField("method", .string("POST")), LogField("path", .string("/api/v1/notifications")),
            LogField("status", .int(200)), LogField("duration_ms", .double(1.235)), LogField("dialect", .string("onesignal")),
            LogField("app", .string("-")), LogField("outcome", .string("sent")), LogField("remote", .string("127.0.0.1")),
        ])
        let seen = lines.lines
        #expect(seen.count == 2 && seen[0] == seen[1], "\(seen)")
    }

    @Test func secretNamedFieldsFromTheStackAreRedactedAsFromAnArray() {
        let lines = LineCollector()
        let log = EventLog(clock: { 0 }, sink: lines.sink)
        let fields = [LogField("api_key", .string("sk_live_123")), LogField("request_id", .string("r"))]
        fields.withUnsafeBufferPointer { log.log(.warning, "m", $0) }
        log.log(.warning, "m", fields)
        let seen = lines.lines
        #expect(seen.count == 2 && seen[0] == seen[1] && !seen[0].contains("sk_live_123"), "\(seen)")
    }
}
