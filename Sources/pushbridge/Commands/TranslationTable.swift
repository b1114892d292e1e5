import PushBridgeCore

/// The terminal rendering of a translation: each OpenPush request, the schedule, a findings table.
enum TranslationTable {
    static func render(_ t: Translation, color: Bool) -> String {
        func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        var out = ""
        if let e = t.error {
            out += paint("REJECTED", "1;31") + " \(e.message)\n"
        }
        for (i, r) in t.requests.enumerated() {
            out += paint("OpenPush request \(i + 1) of \(t.requests.count): \(r.method) \(r.path)", "1") + "\n"
            if let at = r.sendAt { out += "  scheduled for \(at.sendDate) \(at.timezone) (unix \(at.unixSeconds))\n" }
            out += JSONWriter.pretty(.object(r.body)) + "\n\n"
        }
        if t.findings.isEmpty {
            out += "no findings: every field was carried unchanged\n"
            return out
        }
        let header = ["FIELD", "KIND", "SEVERITY", "MESSAGE"]
        let rows = t.findings.map { [$0.field, $0.kind.rawValue, $0.severity.rawValue, $0.message] }
        let w0 = max(header[0].count, rows.map { $0[0].count }.max() ?? 0)
        let w1 = max(header[1].count, rows.map { $0[1].count }.max() ?? 0)
        let w2 = max(header[2].count, rows.map { $0[2].count }.max() ?? 0)
        func line(_ r: [String]) -> String {
            r[0].padding(w0) + "  " + r[1].padding(w1) + "  " + r[2].padding(w2) + "  " + r[3]
        }
        out += paint("\(t.findings.count) finding(s)", "1") + "\n" + paint(line(header), "2") + "\n"
        for (f, r) in zip(t.findings, rows) {
            let code = f.severity == .error ? "31" : f.severity == .warning ? "33" : "36"
            out += paint(line(r), code) + "\n"
        }
        return out
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
