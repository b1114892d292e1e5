/// The HTML report's charts, drawn as inline SVG (no scripts, no external resources).
enum ReportSVG {
    static let palette = ["#2563eb", "#0891b2", "#7c3aed", "#db2777", "#ea580c", "#65a30d", "#475569"]

    /// Columns: requests per bucket (light) and dropped findings per bucket (dark).
    static func overTime(_ buckets: [TimeBucket]) -> String {
        guard !buckets.isEmpty else { return empty("No requests in range") }
        let width = 1100.0, height = 240.0, left = 48.0, bottom = 28.0, top = 12.0
        let (step, steps) = countAxis(buckets.map { max($0.requests, $0.droppedFindings) }.max() ?? 1)
        let peak = Double(step * steps)
        let slot = (width - left - 8) / Double(buckets.count)
        let scale = (height - bottom - top) / peak
        var svg = "<svg viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"Dropped fields over time\">"
        for tick in 0...steps {
            let value = Double(tick * step)
            let y = height - bottom - value * scale
            svg += "<line x1=\"\(left)\" x2=\"\(width - 8)\" y1=\"\(f(y))\" y2=\"\(f(y))\" class=\"grid\"/>"
            svg += "<text x=\"\(left - 6)\" y=\"\(f(y + 4))\" class=\"axis\" text-anchor=\"end\">\(compact(value))</text>"
        }
        for (i, b) in buckets.enumerated() {
            let x = left + Double(i) * slot
            let barWidth = min(56, max(2, slot * 0.7)), inset = (slot - barWidth) / 2
            let requestHeight = Double(b.requests) * scale, droppedHeight = Double(b.droppedFindings) * scale
            svg += "<rect x=\"\(f(x + inset))\" y=\"\(f(height - bottom - requestHeight))\" width=\"\(f(barWidth))\" height=\"\(f(requestHeight))\" class=\"requests\"><title>\(ReportFormatting.shortTime(b.start)): \(b.requests) requests</title></rect>"
            svg += "<rect x=\"\(f(x + inset + barWidth * 0.2))\" y=\"\(f(height - bottom - droppedHeight))\" width=\"\(f(max(1.5, barWidth * 0.6)))\" height=\"\(f(droppedHeight))\" class=\"dropped\"><title>\(ReportFormatting.shortTime(b.start)): \(b.droppedFindings) dropped fields</title></rect>"
            if i == 0 || i == buckets.count - 1 || (buckets.count > 6 && i == buckets.count / 2) {
                svg += "<text x=\"\(f(x + slot / 2))\" y=\"\(f(height - 8))\" class=\"axis\" text-anchor=\"middle\">\(ReportHTML.escape(ReportFormatting.shortTime(b.start)))</text>"
            }
        }
        return svg + "</svg><p class=\"legend\"><span class=\"swatch requests\"></span>requests <span class=\"swatch dropped\"></span>dropped fields</p>"
    }

    /// Horizontal bars: share of each route's requests affected, top 12 dropped fields.
    static func shares(_ groups: [FindingGroup]) -> String {
        let top = Array(groups.prefix(12))
        guard !top.isEmpty else { return empty("Nothing dropped") }
        let labelWidth = 420.0, barSpace = 600.0, row = 26.0
        let height = Double(top.count) * row + 8
        var svg = "<svg viewBox=\"0 0 \(Int(labelWidth + barSpace + 60)) \(Int(height))\" role=\"img\" aria-label=\"Share of requests affected per field\">"
        for (i, g) in top.enumerated() {
            let y = 4 + Double(i) * row
            let label = "\(g.dialect) \(g.route) · \(g.field)"
            let shown = label.count > 60 ? String(label.prefix(59)) + "…" : label
            svg += "<text x=\"\(f(labelWidth - 8))\" y=\"\(f(y + 16))\" class=\"label\" text-anchor=\"end\"><title>\(ReportHTML.escape(label))</title>\(ReportHTML.escape(shown))</text>"
            svg += "<rect x=\"\(f(labelWidth))\" y=\"\(f(y + 4))\" width=\"\(f(barSpace))\" height=\"16\" rx=\"3\" class=\"track\"/>"
            svg += "<rect x=\"\(f(labelWidth))\" y=\"\(f(y + 4))\" width=\"\(f(max(1.5, barSpace * min(1, g.share))))\" height=\"16\" rx=\"3\" fill=\"\(palette[i % 3])\"/>"
            svg += "<text x=\"\(f(labelWidth + barSpace + 6))\" y=\"\(f(y + 16))\" class=\"value\">\(ReportFormatting.percent(g.share))</text>"
        }
        return svg + "</svg>"
    }

    /// One stacked bar of verdicts with a legend.
    static func verdicts(_ shadow: ShadowSummary) -> String {
        guard shadow.comparisons > 0 else { return empty("No shadow traffic") }
        let width = 1100.0
        var svg = "<svg viewBox=\"0 0 \(Int(width)) 44\" role=\"img\" aria-label=\"Shadow verdicts\">"
        var x = 0.0
        var legend = "<p class=\"legend\">"
        for (i, v) in shadow.verdicts.enumerated() {
            let w = width * Double(v.count) / Double(shadow.comparisons)
            let color = palette[(i + 3) % palette.count]
            svg += "<rect x=\"\(f(x))\" y=\"4\" width=\"\(f(w))\" height=\"32\" fill=\"\(color)\"><title>\(ReportHTML.escape(v.name)): \(v.count)</title></rect>"
            x += w
            legend += "<span class=\"swatch\" style=\"background:\(color)\"></span>\(ReportHTML.escape(v.name)) \(v.count) "
        }
        return svg + "</svg>" + legend + "</p>"
    }

    /// Whole-number ticks for a count axis reaching `peak`: a step of 1, 2 or 5 times a power
    /// of ten, and at most 4 steps (`(1, 1)` for 1, `(2, 4)` for 7, `(500, 2)` for 1,000).
    static func countAxis(_ peak: Int) -> (step: Int, steps: Int) {
        let peak = max(1, peak)
        var magnitude = 1
        while true {
            for factor in [1, 2, 5] {
                let step = factor * magnitude
                let steps = (peak + step - 1) / step
                if steps <= 4 { return (step, steps) }
            }
            magnitude *= 10
        }
    }

    static func empty(_ text: String) -> String { "<div class=\"empty\">\(ReportHTML.escape(text))</div>" }

    static func f(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? String(tenths / 10) : String(Double(tenths) / 10)
    }

    static func compact(_ value: Double) -> String {
        value >= 1_000_000 ? f(value / 1_000_000) + "M" : value >= 1000 ? f(value / 1000) + "k" : f(value)
    }
}
