/// A strict reader of Prometheus text-format sample lines for tests: `name{l="v",…} value`,
/// label values unescaped (`\\`, `\"`, `\n`). Comment lines are skipped; a malformed line
/// makes the whole parse `nil`.
enum PrometheusTextParser {
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: String
    }

    static func parse(_ text: String) -> [Sample]? {
        guard text.hasSuffix("\n") else { return nil }
        var samples: [Sample] = []
        for line in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") { continue }
            guard let sample = sample(Array(line.unicodeScalars)[...]) else { return nil }
            samples.append(sample)
        }
        return samples
    }

    private static func sample(_ s: ArraySlice<Unicode.Scalar>) -> Sample? {
        var s = s
        var name = ""
        while let c = s.first, c != "{", c != " " {
            guard c.properties.isAlphabetic || c == "_" || c == ":" || ("0"..."9").contains(c) else { return nil }
            name.unicodeScalars.append(c)
            s.removeFirst()
        }
        var labels: [String: String] = [:]
        if s.first == "{" {
            s.removeFirst()
            while s.first != "}" {
                if !labels.isEmpty { guard s.popFirst() == "," else { return nil } }
                var key = ""
                while let c = s.first, c != "=" { key.unicodeScalars.append(c); s.removeFirst() }
                guard s.popFirst() == "=", s.popFirst() == "\"" else { return nil }
                var value = ""
                while true {
                    guard let c = s.popFirst() else { return nil }
                    if c == "\"" { break }
                    if c == "\n" { return nil }
                    if c == "\\" {
                        switch s.popFirst() {
                        case "\\": value += "\\"
                        case "\"": value += "\""
                        case "n": value += "\n"
                        default: return nil
                        }
                    } else {
                        value.unicodeScalars.append(c)
                    }
                }
                guard labels.updateValue(value, forKey: key) == nil else { return nil }
            }
            s.removeFirst()
        }
        guard !name.isEmpty, s.popFirst() == " " else { return nil }
        let value = String(String.UnicodeScalarView(s))
        guard value == "+Inf" || value == "-Inf" || value == "NaN" || Double(value) != nil else { return nil }
        return Sample(name: name, labels: labels, value: value)
    }
}
