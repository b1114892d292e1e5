import PushBridgeCore

/// Resolves a start's targeting to devices, in registration order.
enum SandboxAudience {
    /// The reachable devices a start targets (before the push-to-start check and truncation).
    static func resolve(_ s: OpenPushStart, devices: [SandboxDevice]) -> [SandboxDevice] {
        let live = devices.filter(\.isReachable)
        if let subs = s.includeSubscriptionIds {
            let wanted = Set(subs)
            return live.filter { wanted.contains($0.subscriptionId) }
        }
        if let included = s.includedSegments {
            let inc = Set(included), exc = Set(s.excludedSegments ?? [])
            return live.filter { d in d.segments.contains(where: inc.contains) && !d.segments.contains(where: exc.contains) }
        }
        if let aliases = s.includeAliases {
            var wanted: [String: Set<String>] = [:]
            for m in aliases.members {
                let ids = m.value.stringValue.map { [$0] } ?? (m.value.arrayValue ?? []).compactMap(\.stringValue)
                wanted[m.key, default: []].formUnion(ids)
            }
            return live.filter { d in wanted.contains { label, ids in matches(d, label: label, ids: ids) } }
        }
        // `filters` are accepted but not evaluated by the sandbox: they target every device.
        return live
    }

    private static func matches(_ d: SandboxDevice, label: String, ids: Set<String>) -> Bool {
        switch label {
        case "subscription_id": ids.contains(d.subscriptionId)
        case "openpush_id": ids.contains(d.openPushId)
        default: d.aliases[label].map(ids.contains) ?? false
        }
    }
}
