extension Metrics {
    /// One app in `rollout` as `/metrics` shows it.
    public struct RolloutSeries: Sendable, Equatable {
        /// The configured app's name.
        public var app: String
        /// Its rollout is rolled back now.
        public var rolledBack: Bool
        /// Rollbacks this instance made since it started.
        public var rollbacks: UInt64

        /// A series.
        public init(app: String, rolledBack: Bool, rollbacks: UInt64) {
            self.app = app
            self.rolledBack = rolledBack
            self.rollbacks = rollbacks
        }
    }

    /// Samples the apps in rollout at each scrape (`pushbridge_rollout_rolled_back{app}`,
    /// `pushbridge_rollout_rollbacks_total{app}`).
    public func sampleRollouts(_ sampler: (@Sendable () -> [RolloutSeries])?) {
        state.withLock { $0.rolloutSampler = sampler }
    }

    func renderRollouts(_ series: [RolloutSeries], into out: inout String) {
        let sorted = series.sorted { $0.app < $1.app }
        PrometheusText.header(into: &out, name: "pushbridge_rollout_rolled_back", help: "1 while the app's rollout is rolled back (its new starts go to the legacy provider).", type: "gauge")
        for s in sorted { out += "pushbridge_rollout_rolled_back" + PrometheusText.labels(["app"], [s.app]) + " " + (s.rolledBack ? "1" : "0") + "\n" }
        PrometheusText.header(into: &out, name: "pushbridge_rollout_rollbacks_total", help: "Automatic rollbacks of the app's rollout made by this instance.", type: "counter")
        for s in sorted { out += "pushbridge_rollout_rollbacks_total" + PrometheusText.labels(["app"], [s.app]) + " " + String(s.rollbacks) + "\n" }
    }
}
