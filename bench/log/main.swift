// log-bench: the event-log lines of one OneSignal start, N times (issue 31, "a lean request
// path"; translate-bench has no log). usage: log-bench [ROOT] N [held|written]
// The start of `make bench` (fixtures/onesignal-start-reference, app `bench-onesignal`, no
// segment map: two warning findings) is translated once; then, N times, what the proxy logs
// for it: `EventLog.findings` and `EventLog.access`, logfmt, into /dev/null (one `write(2)` a
// call, as on stderr). `held` (the default) keeps the default limiter: past the first 100
// identical lines a minute the finding lines are held back, as in a proxy under load; `written`
// lets every finding line through. For callgrind: instructions per request = (count at N=3000
// − count at N=1000) / 2000.
#if canImport(Glibc)
import Glibc
#endif
import PushBridgeCore
import PushBridgeServer

/// `message` on stderr, then exit with `status`.
func fail(_ message: String, _ status: Int32) -> Never {
    var text = message + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let root = arguments.count > 1 ? arguments[0] : "."
let rest = arguments.count > 1 ? Array(arguments.dropFirst()) : arguments
guard let n = rest.first.flatMap({ Int($0) }), n >= 0 else {
    fail("usage: log-bench [ROOT] N [held|written]", 2)
}
let written = rest.dropFirst().first == "written"

/// The fixture's body, or exit 1.
func body(_ path: String) -> [UInt8] {
    guard let f = fopen(path, "rb") else { fail("log-bench: cannot read \(path)", 1) }
    defer { fclose(f) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while case let got = fread(&chunk, 1, chunk.count, f), got > 0 { out.append(contentsOf: chunk[0..<got]) }
    return out
}

let path = "/apps/bench-app/activities/activity/DeliveryAttributes"
let context = TranslationContext(now: 1_781_049_600, requestId: "req_01JDZ8Q6R2W9XK4M7N3P5T8V1B")
guard let (_, translation) = Dialects.translate(path: path, body: body("\(root)/fixtures/onesignal-start-reference/body.json"), context: context) else {
    fail("log-bench: the fixture does not translate", 1)
}
let devNull = open("/dev/null", O_WRONLY)
let limiter = written ? FindingLogLimiter(maxLinesPerRequest: 20, identicalLinesPerWindow: Int.max) : FindingLogLimiter()
let log = EventLog(format: .logfmt, findingLimiter: limiter, sink: EventLog.fileDescriptor(devNull))
var held = 0
for i in 0..<n {
    let requestId = "req_01JDZ8Q6R2W9XK4M7N3P5T8V1B"
    held &+= log.findings(translation.findings, requestId: requestId, dialect: .onesignal, app: "bench-onesignal", route: .start).rateLimited
    log.access(requestId: requestId, method: "POST", path: path, status: 201, durationMs: Double(i % 7), dialect: .onesignal,
               app: "bench-onesignal", outcome: "forwarded", remote: "127.0.0.1")
}
print("log-bench: \(n) requests, \(translation.findings.count) findings each, \(held) finding lines held back")
