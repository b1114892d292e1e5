/// The report's output formats.
public enum ReportFormat: String, Sendable, CaseIterable {
    /// Aligned tables for a terminal.
    case text
    /// GitHub-flavoured Markdown.
    case md
    /// The documented JSON shape (see ``ReportJSON``).
    case json
    /// One CSV with a `section` column (see ``ReportCSV``).
    case csv
    /// One self-contained HTML page with inline CSS and SVG charts.
    case html

    /// The MIME type served by `GET /admin/report`.
    public var contentType: String {
        switch self {
        case .text: "text/plain; charset=utf-8"
        case .md: "text/markdown; charset=utf-8"
        case .json: "application/json"
        case .csv: "text/csv; charset=utf-8"
        case .html: "text/html; charset=utf-8"
        }
    }
}

/// Renders a ``Report`` in any ``ReportFormat``.
public enum ReportRenderer {
    /// The report as text in `format`.
    public static func render(_ report: Report, as format: ReportFormat) -> String {
        switch format {
        case .text: ReportText.render(report)
        case .md: ReportMarkdown.render(report)
        case .json: ReportJSON.render(report)
        case .csv: ReportCSV.render(report)
        case .html: ReportHTML.render(report)
        }
    }
}

/// Number formatting shared by the renderers.
enum ReportFormatting {
    /// `1 request`, `3 requests`.
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// `1 activity`, `2 activities`: a noun whose plural is not `+s`.
    static func count(_ n: Int, _ noun: String, plural: String) -> String { "\(n) \(n == 1 ? noun : plural)" }

    /// `12.5%` (one decimal).
    static func percent(_ share: Double) -> String {
        let tenths = (share * 1000).rounded()
        return "\(Int(tenths) / 10).\(Int(tenths) % 10)%"
    }

    /// A share rounded to 6 decimals, for machine formats.
    static func share(_ share: Double) -> Double { (share * 1_000_000).rounded() / 1_000_000 }

    /// `2026-06-10T12:00:00.000Z`.
    static func time(_ milliseconds: Int64) -> String { RFC3339.format(milliseconds: milliseconds) }

    /// `2026-06-10 12:00` for people.
    static func shortTime(_ milliseconds: Int64) -> String {
        let full = RFC3339.format(milliseconds: milliseconds)
        return String(full.prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    /// Milliseconds with one decimal, `–` when absent.
    static func ms(_ value: Double?) -> String {
        guard let value else { return "–" }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) ms"
    }

    /// Up to three apps, then `+N`.
    static func apps(_ apps: [String]) -> String {
        apps.count <= 3 ? apps.joined(separator: ", ") : apps.prefix(3).joined(separator: ", ") + " +\(apps.count - 3)"
    }

    /// The sections of a report with their finding groups, in order.
    static func findingSections(_ report: Report) -> [(id: String, title: String, groups: [FindingGroup])] {
        [("dropped", "Dropped fields", report.dropped), ("changes", "Changes", report.changes),
         ("rejections", "Rejections by rule", report.rejections), ("caveats", "Caveats", report.caveats)]
    }
}
