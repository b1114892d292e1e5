/// Pieces of the Prometheus text exposition format, version 0.0.4.
public enum PrometheusText {
    /// The `Content-Type` of a `/metrics` answer.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// A label value escaped for use inside double quotes: `\` → `\\`, `"` → `\"`, newline → `\n`.
    public static func escapeLabelValue(_ value: String) -> String {
        guard value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" || $0 == "\r\n" }) else { return value }
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// HELP text escaped: `\` → `\\`, newline → `\n`.
    public static func escapeHelp(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A sample value: integers without a fraction, others as Swift prints them, `+Inf`,
    /// `-Inf` and `NaN` as the format spells them.
    public static func formatValue(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// `{a="x",b="y"}`, or nothing when there are no labels.
    static func labels(_ names: [String], _ values: [String]) -> String {
        guard !names.isEmpty else { return "" }
        let pairs = zip(names, values).map { $0 + "=\"" + escapeLabelValue($1) + "\"" }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    /// The `# HELP` and `# TYPE` lines of a family.
    static func header(into out: inout String, name: String, help: String, type: String) {
        out += "# HELP " + name + " " + escapeHelp(help) + "\n"
        out += "# TYPE " + name + " " + type + "\n"
    }
}
