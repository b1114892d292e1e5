extension Metrics {
    /// What the scheduler and the instance registry last counted, as `/metrics` shows it.
    public struct FleetReading: Sendable, Equatable {
        /// Scheduled starts still to send more than a minute after their send time.
        public var scheduledStartsOverdue: Int
        /// Instances the last heartbeat pass found silent longer than `dead_after_ms` (0 on SQLite).
        public var instancesStale: Int
        /// Instances this one took over since it started (0 on SQLite).
        public var instanceTakeovers: Int

        /// A reading.
        public init(scheduledStartsOverdue: Int, instancesStale: Int, instanceTakeovers: Int) {
            self.scheduledStartsOverdue = scheduledStartsOverdue
            self.instancesStale = instancesStale
            self.instanceTakeovers = instanceTakeovers
        }
    }

    /// Samples the scheduler's and the registry's counts at each scrape
    /// (`pushbridge_scheduled_starts_overdue`, `pushbridge_instances_stale`,
    /// `pushbridge_instance_takeovers_total`). The sampler only reads values the scheduler's
    /// and the registry's own passes stored: no query runs on the scrape.
    public func sampleFleet(_ sampler: (@Sendable () -> FleetReading)?) {
        state.withLock { $0.fleetSampler = sampler }
    }

    /// The reading of the scheduler's `overdue` count and `registry` (nil with SQLite: no
    /// other instance).
    public static func fleetReading(overdue: Int, registry: InstanceRegistry?) -> FleetReading {
        FleetReading(scheduledStartsOverdue: overdue, instancesStale: registry?.stale ?? 0, instanceTakeovers: registry?.takeovers ?? 0)
    }

    func renderFleet(_ reading: FleetReading?, into out: inout String) {
        guard let reading else { return }
        PrometheusText.header(into: &out, name: "pushbridge_scheduled_starts_overdue",
                              help: "Scheduled starts still to send more than 60 s after their send time, at the scheduler's last pass.", type: "gauge")
        out += "pushbridge_scheduled_starts_overdue " + String(reading.scheduledStartsOverdue) + "\n"
        PrometheusText.header(into: &out, name: "pushbridge_instances_stale",
                              help: "Instances found silent longer than instances.dead_after_ms at this instance's last heartbeat pass (0 on SQLite).", type: "gauge")
        out += "pushbridge_instances_stale " + String(reading.instancesStale) + "\n"
        PrometheusText.header(into: &out, name: "pushbridge_instance_takeovers_total",
                              help: "Instances that stopped beating and that this instance took over (0 on SQLite).", type: "counter")
        out += "pushbridge_instance_takeovers_total " + String(reading.instanceTakeovers) + "\n"
    }
}
