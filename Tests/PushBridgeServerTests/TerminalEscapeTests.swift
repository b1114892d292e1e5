import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 20, item 9: an anonymous caller cannot drive the operator's terminal. The issue's
/// request (`POST /apps/%1B%5D0%3Bpwned%07/activities/activity/T` with a wrong key: an OSC
/// "set window title" as the app id), one with a C1 CSI as the app id, and an admitted start
/// whose unknown field names are an OSC 52 clipboard write and a C1 "erase screen" go through
/// the real pipeline (an in-process proxy); then every command an operator reads them with
/// prints them as visible text (`\u{1B}`), never as the control itself.
@Suite(.serialized) struct TerminalEscapeTests {
    static let title = "\u{1B}]0;pwned\u{7}"
    static let clipboard = "\u{1B}]52;c;ZXZpbA==\u{7}"
    static let erase = "\u{9B}2J"

    /// The control characters in `text` a terminal would act on (a line feed is layout).
    static func controls(_ text: String) -> [String] {
        text.unicodeScalars.filter { $0 != "\n" && ($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) }.map { String(format: "U+%04X", $0.value) }
    }

    @Test func everyCommandPrintsStoredControlCharactersVisibly() async throws {
        let run = try ReadinessRun(readiness: .init(minRequests: 1, minShadowed: 0))
        let wrongKey = [("Authorization", "Key wrong")]
        let titled = try await run.proxy.send(path: "/apps/%1B%5D0%3Bpwned%07/activities/activity/T", body: ReadinessRun.start("t"), headers: wrongKey)
        let csi = try await run.proxy.send(path: "/apps/%C2%9B2J/activities/activity/T", body: ReadinessRun.start("c"), headers: wrongKey)
        let refusedId = try #require(titled.headers["x-pushbridge-request-id"])
        #expect(titled.status == 403 && csi.status == 403, "OneSignal refuses a wrong key with 403")
        let admittedId = try await run.send("fields", extra: #""\u001b]52;c;ZXZpbA==\u0007":1,"\u009b2J":2,"#)
        let db = run.proxy.auditPath, config = try run.configFile()
        #expect(try AuditReader(path: db).list().compactMap(\.sourceApp).contains(Self.title), "the issue's app id did not reach the audit")

        let scheduler = run.proxy.directory.appendingPathComponent("escape-scheduled.sqlite").path
        let store = try ScheduledStartStore(path: scheduler)
        var start = OpenPushStart(appId: "app_3f9c2b", activityType: "T")
        start.includeSubscriptionIds = ["sub_ios_alice"]
        try await store.insert([ScheduledStart(id: "sch_escape", requestId: "req_\u{1B}]0;x\u{7}", ordinal: 0, appName: "pw\u{9B}2J", request: OpenPushRequest(.start(start)),
                                         time: SendTime(unixSeconds: 2_000_000_000, sendDate: "2033-05-18 03:33", timezone: "UTC"))], now: 0)

        let text: [([String], [String])] = [
            (["audit", "list", "--db", db], [#"\u{1B}]0;pwned\u{7}"#, #"\u{9B}2J"#]),
            (["audit", "show", refusedId, "--db", db], [#"\u{1B}]0;pwned\u{7}"#]),
            (["audit", "show", admittedId, "--db", db], [#"\u{1B}]52;c;ZXZpbA==\u{7}"#, #"\u{9B}2J"#]),
            (["report", "--config", config], [#"\u{1B}]52;c;ZXZpbA==\u{7}"#, #"\u{9B}2J"#]),
            (["report", "--config", config, "--format", "md"], [#"\u{1B}]52;c;ZXZpbA==\u{7}"#, #"\u{9B}2J"#]),
            (["readiness", "--config", config, "--app", "os"], [#"\u{1B}]52;c;ZXZpbA==\u{7}"#, #"\u{9B}2J"#]),
            (["readiness", "--config", config, "--app", "os", "--format", "md"], [#"\u{1B}]52;c;ZXZpbA==\u{7}"#]),
            (["scheduled", "list", "--db", scheduler], [#"pw\u{9B}2J"#, #"req_\u{1B}]0;x\u{7}"#]),
        ]
        for (command, visible) in text {
            let out = try await CLIRunner.runAsync(command)
            #expect(out.status == 0 || command[0] == "readiness", "\(command): \(out.stderr)")
            #expect(Self.controls(out.stdout).isEmpty, "\(command) printed raw controls \(Self.controls(out.stdout)): \(out.stdout.debugDescription)")
            for v in visible { #expect(out.stdout.contains(v), "\(command) does not show \(v): \(out.stdout)") }
        }

        // JSON: the same bytes are escapes (C0 by the writer, DEL and C1 too), and parse back to what was stored.
        let json: [[String]] = [["audit", "list", "--db", db, "--format", "json"], ["audit", "show", admittedId, "--db", db, "--format", "json"],
                                ["report", "--config", config, "--format", "json"], ["readiness", "--config", config, "--app", "os", "--format", "json"],
                                ["scheduled", "list", "--db", scheduler, "--format", "json"]]
        for command in json {
            let out = try await CLIRunner.runAsync(command)
            #expect(Self.controls(out.stdout).isEmpty, "\(command) printed raw controls: \(out.stdout.debugDescription)")
            let parsed = try JSONParser.parse(Array(out.stdout.utf8))
            #expect(JSONWriter.string(parsed).contains(Self.erase) || JSONWriter.string(parsed).contains("pw\u{9B}2J"), "\(command) lost the stored value")
        }

        let report = try AuditReader(path: db).report(readiness: ReadinessSettings(try run.configuration))
        let html = ReportRenderer.render(report, as: .html)
        #expect(Self.controls(html).isEmpty && html.contains(#"\u{1B}]52;c;ZXZpbA==\u{7}"#), "the HTML report carries raw controls")
        await run.stop()
    }

    @Test func theEscaperShowsEveryControlAndKeepsEverythingElse() {
        let cases: [(String, String)] = [
            ("plain ünïcode 日本", "plain ünïcode 日本"), ("", ""),
            (Self.title, #"\u{1B}]0;pwned\u{7}"#), (Self.erase, #"\u{9B}2J"#),
            ("a\rb\tc\0d\u{7F}e", #"a\u{D}b\u{9}c\u{0}d\u{7F}e"#), ("line\nbreak", #"line\u{A}break"#),
            ("rtl\u{202E}gnp.exe", #"rtl\u{202E}gnp.exe"#), ("e\u{301}", "e\u{301}"),
        ]
        for (stored, shown) in cases { #expect(TerminalText.escape(stored) == shown, "\(stored.debugDescription)") }
        #expect(TerminalText.escape("one\ntwo\u{1B}", keepingNewlines: true) == "one\ntwo\\u{1B}")
        #expect(TerminalText.json(#"{"a": "x\#u{9B}y\#u{7F}"}"#) == #"{"a": "x\u009by\u007f"}"#)
    }
}
