extension Metrics {
    /// The whole exposition, every family with its `# HELP` and `# TYPE` lines, series sorted
    /// by label values. Serve it with ``PrometheusText/contentType``.
    public func render() -> String {
        let (sampler, diskSampler, rolloutSampler, fleetSampler) = state.withLock { ($0.auditQueueDepthSampler, $0.auditDiskSampler, $0.rolloutSampler, $0.fleetSampler) }
        let sampledDepth = sampler.map { Int64($0()) }
        let disk = diskSampler?()
        let snapshot = state.withLock { $0 }
        var out = ""
        out.reserveCapacity(4096)
        counters(into: &out, "pushbridge_requests_total", "Requests answered, by dialect, route and HTTP status.", snapshot.requests)
        counters(into: &out, "pushbridge_findings_total", "Translation findings, by dialect, field path and kind.", snapshot.findings)
        PrometheusText.header(into: &out, name: "pushbridge_upstream_latency_seconds", help: "Latency of upstream (OpenPush) calls in seconds.", type: "histogram")
        snapshot.upstreamLatency.render(into: &out, name: "pushbridge_upstream_latency_seconds")
        counters(into: &out, "pushbridge_upstream_attempts_total", "Upstream call attempts, by result (population_gap: OpenPush cannot reach the phone yet, not an error).",
                 snapshot.upstreamAttempts)
        counters(into: &out, "pushbridge_population_gaps_total",
                 "Requests whose audience was not on a provider yet (outcome not_on_openpush or not_on_legacy), by app: not errors.", snapshot.populationGaps)
        gauge(into: &out, "pushbridge_audit_queue_depth", "Audit rows waiting for the writer thread.", sampledDepth ?? snapshot.auditQueueDepth)
        PrometheusText.header(into: &out, name: "pushbridge_audit_write_seconds", help: "Time to write (commit) audit rows in seconds.", type: "histogram")
        snapshot.auditWrite.render(into: &out, name: "pushbridge_audit_write_seconds")
        PrometheusText.header(into: &out, name: "pushbridge_shadow_dropped_total", help: "Shadow sends dropped.", type: "counter")
        out += "pushbridge_shadow_dropped_total " + String(snapshot.shadowDropped) + "\n"
        PrometheusText.header(into: &out, name: "pushbridge_shadow_skipped_total",
                              help: "Shadow sends to OpenPush skipped: no slot live sends did not need within delivery.shadow_max_wait_ms.", type: "counter")
        out += "pushbridge_shadow_skipped_total " + String(snapshot.shadowSkipped) + "\n"
        gauge(into: &out, "pushbridge_inflight_requests", "Requests being handled now.", snapshot.inflight)
        if !snapshot.activitiesInFlight.isEmpty {
            PrometheusText.header(into: &out, name: "pushbridge_activities_in_flight",
                                  help: "Live Activities in flight (not ended, within 12 h of their start), by app and the provider holding them (openpush, legacy, both).", type: "gauge")
            for series in snapshot.activitiesInFlight {
                out += "pushbridge_activities_in_flight" + PrometheusText.labels(["app", "provider"], [series.app, series.provider]) + " " + String(series.count) + "\n"
            }
        }
        PrometheusText.header(into: &out, name: "pushbridge_audit_pruned_rows_total", help: "Audit rows deleted by retention.", type: "counter")
        out += "pushbridge_audit_pruned_rows_total " + String(snapshot.auditPruned) + "\n"
        PrometheusText.header(into: &out, name: "pushbridge_audit_unavailable_total",
                              help: "Requests refused with 503 because the audit database could not be reached.", type: "counter")
        out += "pushbridge_audit_unavailable_total " + String(snapshot.auditUnavailable) + "\n"
        if let disk {
            gauge(into: &out, "pushbridge_audit_used_bytes", "Bytes of audit pages holding rows, plus the WAL.", disk.usedBytes)
            gauge(into: &out, "pushbridge_audit_file_bytes", "Bytes of the audit database file and its WAL on disk.", disk.fileBytes)
            gauge(into: &out, "pushbridge_audit_free_bytes", "Bytes free on the audit's filesystem.", disk.freeBytes)
            gauge(into: &out, "pushbridge_audit_max_bytes", "The audit_max_mib ceiling, in bytes.", snapshot.auditDiskLimits.ceiling)
            gauge(into: &out, "pushbridge_audit_min_free_bytes", "The audit_min_free_mib floor, in bytes.", snapshot.auditDiskLimits.floor)
            gauge(into: &out, "pushbridge_audit_disk_warning", "1 when the audit is past its ceiling or its filesystem under its floor.", disk.warnings.isEmpty ? 0 : 1)
        }
        counters(into: &out, "pushbridge_log_lines_suppressed_total", "Finding log lines held back, by app and reason (per_request_cap, identical_rate).",
                 snapshot.logLinesSuppressed)
        if let rollouts = rolloutSampler?() { renderRollouts(rollouts, into: &out) }
        renderFleet(fleetSampler?(), into: &out)
        return out
    }

    private func counters(into out: inout String, _ name: String, _ help: String, _ family: LabeledCounters) {
        PrometheusText.header(into: &out, name: name, help: help, type: "counter")
        for series in family.sorted {
            out += name + PrometheusText.labels(family.labelNames, series.labels) + " " + String(series.value) + "\n"
        }
    }

    private func gauge(into out: inout String, _ name: String, _ help: String, _ value: Int64) {
        PrometheusText.header(into: &out, name: name, help: help, type: "gauge")
        out += name + " " + String(value) + "\n"
    }
}
