/// A strict little logfmt reader for tests: `key=value` pairs separated by single spaces,
/// values bare or double-quoted with `\"`, `\\`, `\n`, `\r`, `\t` and `\uXXXX` escapes.
/// Returns `nil` for anything else, so a malformed line fails the test that reads it.
enum LogfmtParser {
    static func parse(_ line: String) -> [(key: String, value: String)]? {
        var scalars = Array(line.unicodeScalars)[...]
        var pairs: [(key: String, value: String)] = []
        while !scalars.isEmpty {
            if !pairs.isEmpty {
                guard scalars.popFirst() == " " else { return nil }
            }
            var key = ""
            while let s = scalars.first, s != "=" {
                guard s != " ", s != "\"", s.value > 0x20 else { return nil }
                key.unicodeScalars.append(s)
                scalars.removeFirst()
            }
            guard !key.isEmpty, scalars.popFirst() == "=" else { return nil }
            guard let value = scalars.first == "\"" ? quoted(&scalars) : bare(&scalars) else { return nil }
            pairs.append((key, value))
        }
        return pairs
    }

    private static func bare(_ scalars: inout ArraySlice<Unicode.Scalar>) -> String? {
        var value = ""
        while let s = scalars.first, s != " " {
            guard s != "\"", s != "=", s != "\\", s.value >= 0x20 else { return nil }
            value.unicodeScalars.append(s)
            scalars.removeFirst()
        }
        return value.isEmpty ? nil : value
    }

    private static func quoted(_ scalars: inout ArraySlice<Unicode.Scalar>) -> String? {
        scalars.removeFirst()
        var value = ""
        while let s = scalars.popFirst() {
            switch s {
            case "\"": return value
            case "\\":
                switch scalars.popFirst() {
                case "\"": value += "\""
                case "\\": value += "\\"
                case "n": value += "\n"
                case "r": value += "\r"
                case "t": value += "\t"
                case "u":
                    let hex = String(String.UnicodeScalarView(scalars.prefix(4)))
                    guard hex.count == 4, let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else { return nil }
                    scalars.removeFirst(4)
                    value.unicodeScalars.append(scalar)
                default: return nil
                }
            default:
                guard s.value >= 0x20 else { return nil }
                value.unicodeScalars.append(s)
            }
        }
        return nil
    }
}
