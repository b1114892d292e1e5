#if canImport(Glibc)
import Glibc
#endif
import PushBridgeCore

/// `redaction-bench audit bytes|tree N BODY [DIALECT]`: the audit's redacted copy of one body
/// made N times, over its bytes (what the audit does) or through the parsed tree and the
/// writer (what it did before issue 31), the body parsed once before. For instruction counts
/// under `valgrind --tool=callgrind`, repeatable on a loaded machine: per copy is
/// (Ir at N − Ir at 0) / N.
enum AuditCopy {
    /// Runs the mode named in `arguments` and exits.
    static func run(_ arguments: [String], fingerprint: (String) -> String) {
        guard arguments.count >= 5, let n = Int(arguments[3]), let file = fopen(arguments[4], "rb") else {
            print("usage: redaction-bench audit bytes|tree N BODY [onesignal|pushwoosh|buzzkit]")
            exit(2)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while case let got = fread(&chunk, 1, chunk.count, file), got > 0 { bytes.append(contentsOf: chunk[0..<got]) }
        fclose(file)
        let dialect = arguments.count > 5 ? DialectName(rawValue: arguments[5]) : .onesignal
        let body = ParsedBody(bytes)
        guard let value = body.value else { print("the body does not parse"); exit(2) }
        let extra = ["a-configured-rest-api-key-1234", "the-presented-credential-5678"]
        var total = 0
        for _ in 0..<n {
            if arguments[2] == "tree" {
                total &+= JSONWriter.string(Redaction.redacted(value, dialect: dialect, extraSecrets: extra, fingerprint: fingerprint).value).utf8.count
            } else {
                total &+= Redaction.inboundSwept(body, dialect: dialect, extraSecrets: extra, fingerprint: fingerprint).body.utf8.count
            }
        }
        print("\(arguments[2]): \(n) copies, \(total) bytes")
        exit(0)
    }
}
