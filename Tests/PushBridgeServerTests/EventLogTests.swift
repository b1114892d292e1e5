import PushBridgeCore
import Testing
@testable import PushBridgeServer

struct EventLogTests {
    static let fixedClock: @Sendable () -> Int64 = { 1_795_000_000_123 }

    static func log(_ format: ProxyConfiguration.LogFormat, _ collector: LineCollector, minimumLevel: LogLevel = .debug) -> EventLog {
        EventLog(format: format, minimumLevel: minimumLevel, clock: fixedClock, sink: collector.sink)
    }

    /// The line as ordered (key, value) pairs, read by the format's own parser.
    static func pairs(_ line: String, _ format: ProxyConfiguration.LogFormat) throws -> [(key: String, value: String)] {
        switch format {
        case .logfmt:
            return try #require(LogfmtParser.parse(line))
        case .json:
            let object = try #require(try JSONParser.parse(line).objectValue)
            return object.members.map { member in
                switch member.value {
                case .string(let s): (member.key, s)
                case let other: (member.key, JSONWriter.string(other))
                }
            }
        }
    }

    @Test(arguments: ProxyConfiguration.LogFormat.allCases)
    func lineParsesBackWithExactFieldsInOrder(format: ProxyConfiguration.LogFormat) throws {
        let collector = LineCollector()
        Self.log(format, collector).info("started", ["port": 8080, "ratio": 0.25, "tls": false, "listen": "127.0.0.1:8080"])
        #expect(collector.output.hasSuffix("\n"))
        #expect(collector.lines.count == 1)
        let pairs = try Self.pairs(collector.lines[0], format)
        #expect(pairs.map(\.key) == ["ts", "level", "msg", "port", "ratio", "tls", "listen"])
        #expect(pairs.map(\.value) == ["2026-11-18T11:06:40.123Z", "info", "started", "8080", "0.25", "false", "127.0.0.1:8080"])
    }

    @Test func exactLogfmtAndJSONText() {
        let logfmt = LineCollector(), json = LineCollector()
        for (format, collector) in [(ProxyConfiguration.LogFormat.logfmt, logfmt), (.json, json)] {
            Self.log(format, collector).warning("a b", ["empty": "", "eq": "x=y", "n": 3])
        }
        #expect(logfmt.output == #"ts=2026-11-18T11:06:40.123Z level=warning msg="a b" empty="" eq="x=y" n=3"# + "\n")
        #expect(json.output == #"{"ts":"2026-11-18T11:06:40.123Z","level":"warning","msg":"a b","empty":"","eq":"x=y","n":3}"# + "\n")
    }

    static let hostileValues: [String] = [
        "two\nlines level=error msg=forged",
        "cr\r\nlf",
        #"quote" and \backslash\"#,
        "tab\tbell\u{07}nul\u{00}del\u{7F}",
        "c1\u{85}ls\u{2028}ps\u{2029}end",
        "equals=sign and spaces",
        "\"",
        "\\",
        "é 👨‍🍳 ünïcødé",
    ]

    @Test(arguments: ProxyConfiguration.LogFormat.allCases)
    func hostileValuesStayOnOneLineAndRoundTrip(format: ProxyConfiguration.LogFormat) throws {
        let collector = LineCollector()
        let log = Self.log(format, collector)
        for value in Self.hostileValues {
            log.log(.warning, value, [LogField("value", .string(value))])
        }
        let lines = collector.lines
        #expect(lines.count == Self.hostileValues.count)
        for (line, value) in zip(lines, Self.hostileValues) {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x85 || $0.value == 0x2028 || $0.value == 0x2029 })
            let pairs = try Self.pairs(line, format)
            #expect(pairs.map(\.key) == ["ts", "level", "msg", "value"])
            #expect(pairs[1].value == "warning")
            #expect(pairs[2].value == value)
            #expect(pairs[3].value == value)
        }
    }

    @Test(arguments: ProxyConfiguration.LogFormat.allCases)
    func reservedRepeatedAndHostileKeysCannotForgeFields(format: ProxyConfiguration.LogFormat) throws {
        let collector = LineCollector()
        Self.log(format, collector).log(.info, "m", [
            LogField("level", "error"), LogField("msg", "forged"), LogField("a", "1"), LogField("a", "2"),
            LogField("k y=\"\n", "v"), LogField("", "e"),
        ])
        let pairs = try Self.pairs(collector.lines[0], format)
        #expect(pairs.map(\.key) == ["ts", "level", "msg", "level_2", "msg_2", "a", "a_2", "k_y___", "_"])
        #expect(pairs[1].value == "info")
        #expect(pairs[2].value == "m")
    }

    @Test func minimumLevelSkipsLowerLevels() {
        let collector = LineCollector()
        let log = Self.log(.logfmt, collector, minimumLevel: .warning)
        log.debug("d")
        log.info("i")
        log.warning("w")
        log.error("e")
        #expect(collector.lines.map { $0.split(separator: " ")[1] } == ["level=warning", "level=error"])
    }

    @Test func longValuesAreCutAtACharacterBoundary() throws {
        let collector = LineCollector()
        EventLog(format: .logfmt, maxValueBytes: 20, clock: Self.fixedClock, sink: collector.sink)
            .info("m", ["long": .string(String(repeating: "é", count: 50))])
        let pairs = try #require(LogfmtParser.parse(collector.lines[0]))
        #expect(pairs[3].value == String(repeating: "é", count: 10) + "…[truncated]")
    }

    @Test func findingsAreOneLineEachAtTheirOwnSeverity() throws {
        let collector = LineCollector()
        let findings = [
            Finding(field: "contents.en", kind: .renamed, message: "sent as alert.body"),
            Finding(field: "ios_sound", kind: .dropped, message: "OpenPush has no \"sound\" for Live Activities"),
        ]
        Self.log(.logfmt, collector).findings(findings, requestId: "req-1", dialect: .onesignal, app: "demo", route: .update)
        let lines = try collector.lines.map { try #require(LogfmtParser.parse($0)) }
        #expect(lines.count == 2)
        #expect(lines[1].map(\.key) == ["ts", "level", "msg", "request_id", "dialect", "app", "route", "field", "kind", "severity", "reason"])
        #expect(lines[1].dropFirst().map(\.value) == ["warning", "translation finding", "req-1", "onesignal", "demo", "update", "ios_sound", "dropped", "warning", "OpenPush has no \"sound\" for Live Activities"])
        #expect(lines[0][7].value == "contents.en")
        #expect(lines[0][9].value == "info")
        #expect(lines[0][1].value == "info", "an info finding is logged at level=info, not warning")
    }

    @Test func findingsBelowTheMinimumLevelAreSkippedAndTheRestKeepTheirOrder() throws {
        let collector = LineCollector()
        let findings = [
            Finding(field: "notifications[0].name", kind: .synthesized, message: "name made up"),
            Finding(field: "notifications[0].filter", kind: .caveat, message: "fan-out"),
            Finding(field: "notifications[1].live_activity.stale-date", kind: .rejected, message: "not seconds"),
        ]
        EventLog(format: .logfmt, minimumLevel: .warning, clock: Self.fixedClock, sink: collector.sink)
            .findings(findings, requestId: "req-9", dialect: .pushwoosh, app: "pw", route: .start)
        let lines = try collector.lines.map { try #require(LogfmtParser.parse($0)) }
        #expect(lines.map { $0[1].value } == ["warning", "error"])
        #expect(lines.map { $0[7].value } == ["notifications[0].filter", "notifications[1].live_activity.stale-date"])
    }

    @Test func accessLineDropsTheQueryString() throws {
        let collector = LineCollector()
        Self.log(.json, collector).access(requestId: "req-2", method: "POST", path: "/api/v1/notifications?api_key=sk_live_123",
                                          status: 200, durationMs: 12.34567, dialect: .onesignal, app: nil, outcome: "forwarded", remote: "10.0.0.1")
        #expect(!collector.output.contains("sk_live_123"))
        #expect(collector.output == #"{"ts":"2026-11-18T11:06:40.123Z","level":"info","msg":"request","request_id":"req-2","method":"POST","path":"/api/v1/notifications","status":200,"duration_ms":12.346,"dialect":"onesignal","app":"-","outcome":"forwarded","remote":"10.0.0.1"}"# + "\n")
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"), (-1, "1969-12-31T23:59:59.999Z"), (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (1_795_000_000_123, "2026-11-18T11:06:40.123Z"), (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ])
    func rfc3339(milliseconds: Int64, expected: String) {
        #expect(RFC3339.format(milliseconds: milliseconds) == expected)
    }
}
