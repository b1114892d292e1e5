/// The one CSV cell encoder of every CSV PushBridge writes (the report, the readiness rows,
/// the admin endpoints' `format=csv`): what a caller sent is data, never a formula, and never
/// a control character a terminal or a spreadsheet acts on.
///
/// A cell is made of, in order:
/// 1. control characters written visibly (``TerminalText/escape(_:keepingNewlines:)``, line
///    breaks included, so a cell is always one line);
/// 2. the OWASP rule against formula injection: a cell starting with `=`, `+`, `-`, `@`, tab or
///    CR (or their full-width forms `＝＋－＠`, which some spreadsheets also read as a formula)
///    gets a leading apostrophe, so `=HYPERLINK(…)` is shown as the text it is;
/// 3. RFC 4180 quoting: a cell holding a comma, a quote or a line break is quoted, quotes doubled.
public enum CSVCell {
    /// One cell.
    public static func encode(_ field: String) -> String {
        var cell = TerminalText.escape(field)
        if let first = cell.unicodeScalars.first, formulaStarts.contains(first) { cell = "'" + cell }
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// One line: the cells encoded, comma-separated, without a line end.
    public static func row(_ fields: [String]) -> String { fields.map(encode).joined(separator: ",") }

    /// Rows as a CSV document with `\n` line ends.
    public static func document(_ rows: [[String]]) -> String { rows.map(row).joined(separator: "\n") + "\n" }

    /// The first characters a spreadsheet takes as the start of a formula (OWASP, plus the full-width forms).
    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r", "\u{FF1D}", "\u{FF0B}", "\u{FF0D}", "\u{FF20}"]
}
