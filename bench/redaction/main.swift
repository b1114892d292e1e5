// Redaction's worst case: a body built so that a sweep per secret costs
// secrets × text × match length, timed with the one-pass sweep PushBridge uses and with the
// per-secret sweep it replaced (kept below as the reference), plus what a refused request
// costs (an excerpt only).
//
//   swift build -c release --product redaction-bench && .build/release/redaction-bench [SECRETS] [TEXT_KB]
import PushBridgeCore

let arguments = CommandLine.arguments
let secretCount = arguments.count > 1 ? Int(arguments[1]) ?? 1000 : 1000
let textKB = arguments.count > 2 ? Int(arguments[2]) ?? 100 : 100

/// Secrets sharing a long prefix (each comparison runs the prefix before failing) and a long
/// `name` made of that prefix, ending in one secret: the shape that hurts a naive sweep most.
func worstCase(secrets: Int, textBytes: Int) -> (body: [UInt8], secret: String) {
    let prefix = String(repeating: "a", count: 120)
    let tokens = (0..<secrets).map { prefix + "\($0)x" }
    var body = JSONObject()
    body["token"] = .array(tokens.map(JSONValue.string))
    body["name"] = .string(String(repeating: prefix, count: max(1, textBytes / prefix.utf8.count)) + tokens[secrets / 2])
    return (JSONWriter.bytes(.object(body)), tokens[secrets / 2])
}

let fingerprint: (String) -> String = { "sha256:" + String($0.utf8.count, radix: 16) }
if arguments.count > 1 && arguments[1] == "audit" { AuditCopy.run(arguments, fingerprint: fingerprint) }

func time(_ label: String, runs: Int, _ work: () -> Int) {
    var best = Duration.seconds(1_000_000), check = 0
    for _ in 0..<runs {
        let started = ContinuousClock.now
        check &+= work()
        best = min(best, ContinuousClock.now - started)
    }
    let ms = Double(best.components.seconds) * 1000 + Double(best.components.attoseconds) / 1e15
    print(label + String(repeating: " ", count: max(1, 44 - label.count)) + format3(ms) + " ms per body   (check \(check % 997))")
}

func format3(_ x: Double) -> String {
    let scaled = Int((x * 1000).rounded())
    let frac = String(scaled % 1000)
    return "\(scaled / 1000).\(String(repeating: "0", count: 3 - frac.count))\(frac)"
}

let (body, secret) = worstCase(secrets: secretCount, textBytes: textKB * 1024)
print("redaction worst case: \(secretCount) secrets sharing a 120-byte prefix, a \(textKB) KiB name, body \(body.count) bytes")
time("one pass (SecretScrubber), authenticated", runs: 5) {
    let out = Redaction.inboundBody(body, dialect: .onesignal, fingerprint: fingerprint)
    precondition(!out.contains(secret))
    return out.utf8.count
}
time("refused before authentication (excerpt)", runs: 5) {
    Redaction.refusedBody(ParsedBody(body), dialect: .onesignal, extraSecrets: ["a-presented-key"], fingerprint: fingerprint).utf8.count
}
time("per-secret sweep (the algorithm replaced)", runs: 1) {
    // What dominated it: the sweep of the long name with every secret found under a key.
    let found = Redaction.secrets(inInbound: body, dialect: .onesignal)
    let text = String(repeating: String(repeating: "a", count: 120), count: max(1, textKB * 1024 / 120)) + secret
    return ReferenceSweep.sweep(text, secrets: found, fingerprint: fingerprint).utf8.count
}
