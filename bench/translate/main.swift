#if canImport(Glibc)
import Glibc
#endif
import PushBridgeCore

/// Translation throughput per dialect on one core: decode, translate, validate, encode.
/// Reads the request bodies from fixtures/ so the benchmark measures what the golden tests check.
/// Run: `make bench-translate` (release build). Target: ≥ 50,000 OneSignal starts per second.

struct Case {
    let name: String
    let path: String
    let fixture: String
    /// How many copies of the fixture's first Pushwoosh notification the body carries (live
    /// activity ids `LA_0`, `LA_1`, …, as `alloc-count`'s Pushwoosh start of three); 0 keeps the body.
    var copies = 0
}

let cases = [
    Case(name: "onesignal start", path: "/apps/app_3f9c2b/activities/activity/DeliveryAttributes", fixture: "onesignal-start-reference"),
    Case(name: "onesignal update", path: "/apps/app_3f9c2b/live_activities/order_88214/notifications", fixture: "onesignal-update-reference"),
    Case(name: "pushwoosh start", path: "/json/1.3/startLiveActivity", fixture: "pushwoosh-start-filter-reference"),
    Case(name: "pushwoosh update", path: "/json/1.3/updateLiveActivity", fixture: "pushwoosh-update-reference"),
    Case(name: "buzzkit update", path: "/v1/live-activities/send", fixture: "buzzkit-reference-update-alert"),
    Case(name: "pushwoosh start 3", path: "/json/1.3/startLiveActivity", fixture: "pushwoosh-start-filter-reference", copies: 3),
]

/// The fixture's body with its first notification repeated `copies` times (see ``Case/copies``).
func repeatedNotification(_ body: [UInt8], copies: Int) -> [UInt8]? {
    guard copies > 0 else { return body }
    guard case .object(var start)? = try? JSONParser.parse(body), case .object(var request)? = start["request"],
          case .object(let note)? = request["notifications"]?.arrayValue?.first else { return nil }
    request["notifications"] = .array((0..<copies).map { i in
        var copy = note
        copy["live_activity_id"] = .string("LA_\(i)")
        return .object(copy)
    })
    start["request"] = .object(request)
    return JSONWriter.bytes(.object(start))
}

func readFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n <= 0 { break }
        out.append(contentsOf: buf[0..<n])
    }
    return out
}

let root = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "fixtures"
let context = TranslationContext(now: 1_781_049_600, requestId: "bench")
let seconds = 1.0
/// With a second argument N, each case runs exactly N translations (for `valgrind --tool=callgrind`,
/// whose instruction counts are repeatable on a shared machine where wall time is not).
let fixedCount = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) : nil
/// With a third argument, only the case of that name runs (one case per callgrind run).
let only = CommandLine.arguments.count > 3 ? CommandLine.arguments[3] : nil
print("translation benchmark (single thread; decode + translate + validate + encode)")
print("case".padding(18) + "translations/s".padding(16) + "µs/translation".padding(16) + "findings")
for c in cases where only.map({ c.name == $0 }) ?? true {
    guard let body = readFile("\(root)/\(c.fixture)/body.json").flatMap({ repeatedNotification($0, copies: c.copies) }) else {
        print(c.name.padding(18) + "missing fixture \(c.fixture)")
        continue
    }
    // Warm up, then run for about a second.
    var sink = 0
    var findings = 0
    for _ in 0..<2000 {
        if let (_, t) = Dialects.translate(path: c.path, body: body, context: context) { findings = t.findings.count }
    }
    let clock = ContinuousClock()
    var n = 0
    let start = clock.now
    var elapsed = Duration.zero
    while fixedCount.map({ n < $0 }) ?? (elapsed < .seconds(seconds)) {
        for _ in 0..<1000 {
            guard let (_, t) = Dialects.translate(path: c.path, body: body, context: context) else { continue }
            for r in t.requests { sink &+= r.bodyBytes.count }
        }
        n += 1000
        elapsed = clock.now - start
    }
    let s = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let rate = Double(n) / s
    print(c.name.padding(18) + String(Int(rate)).padding(16) + String(format1(1e6 / rate)).padding(16) + "\(findings)  (sink \(sink % 7))")
}

func format1(_ x: Double) -> String {
    let r = (x * 10).rounded() / 10
    return String(r)
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}
