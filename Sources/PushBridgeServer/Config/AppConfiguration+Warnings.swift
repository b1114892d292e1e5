import PushBridgeCore

extension AppConfiguration {
    /// The provider a mode sends a route's requests to first, or nil for `rollout`, which
    /// splits new starts by cohort.
    private func firstSide(for route: RouteKind) -> String? {
        switch mode(for: route) {
        case .observe: "the legacy provider"
        case .shadow: shadow?.primary == .openpush ? "OpenPush" : "the legacy provider"
        case .openpush: "OpenPush"
        case .rollout: nil
        }
    }

    /// Why `route_modes` sends this app's starts to one provider and its updates to the other,
    /// or nil when they agree: affinity keeps updates and ends of known activities with their
    /// holder, so the override only decides where updates of activities PushBridge never saw
    /// start go first.
    public var splitRoutesWarning: String? {
        guard !routeModes.isEmpty, dialect != .buzzkit, let starts = firstSide(for: .start), let updates = firstSide(for: .update), starts != updates else { return nil }
        return "app \(name): route_modes sends starts to \(starts) (\(mode(for: .start).rawValue)) and updates to \(updates) (\(mode(for: .update).rawValue)); "
            + "affinity routes every update and end of an activity the ledger knows to the provider that accepted its start, so route_modes.update only decides "
            + "where an update of an activity started before PushBridge was in the path goes first"
    }

    /// Why this app's rollout can show a phone two activities (`segment_starts: both`), or nil.
    public var twoActivitiesWarning: String? {
        guard modesInUse.contains(.rollout), let rollout, rollout.segmentStarts == .both else { return nil }
        return "app \(name): rollout.segment_starts is \"both\": a segment or filter start goes to OpenPush and to the legacy provider, "
            + "so a phone registered on both sides shows two activities"
    }

    /// Every warning about this app's configuration, in a fixed order: a shadow reaching the
    /// primary's phones, a rollout sending segment starts to both sides, split route modes.
    public var configurationWarnings: [String] { [sameAudienceWarning, twoActivitiesWarning, splitRoutesWarning].compactMap { $0 } }
}
