/// A Prometheus histogram without labels: per-bucket counts (rendered cumulatively), sum and count.
struct Histogram: Sendable {
    /// Latency buckets in seconds, 1 ms to 10 s.
    static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// Upper bounds, ascending, without `+Inf`.
    let bounds: [Double]
    /// Observations per bucket (not cumulative); the last slot is for `+Inf`.
    private(set) var counts: [UInt64]
    private(set) var sum: Double = 0
    private(set) var count: UInt64 = 0

    init(bounds: [Double]) {
        self.bounds = bounds.sorted()
        counts = Array(repeating: 0, count: bounds.count + 1)
    }

    /// Records one observation; NaN is ignored.
    mutating func observe(_ value: Double) {
        guard !value.isNaN else { return }
        let index = bounds.firstIndex { value <= $0 } ?? bounds.count
        counts[index] &+= 1
        sum += value
        count &+= 1
    }

    /// The `_bucket`, `_sum` and `_count` lines.
    func render(into out: inout String, name: String) {
        var cumulative: UInt64 = 0
        for (i, c) in counts.enumerated() {
            cumulative &+= c
            let le = i < bounds.count ? PrometheusText.formatValue(bounds[i]) : "+Inf"
            out += name + "_bucket{le=\"" + le + "\"} " + String(cumulative) + "\n"
        }
        out += name + "_sum " + PrometheusText.formatValue(sum) + "\n"
        out += name + "_count " + String(count) + "\n"
    }
}
