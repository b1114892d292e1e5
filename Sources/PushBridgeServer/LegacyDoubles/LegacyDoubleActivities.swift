import PushBridgeCore

/// The Live Activities the legacy doubles started, so an update or end of an id a double never
/// started (or that has ended) gets its provider's documented error. Keeps at most as many
/// activities as the doubles keep requests; the oldest start is forgotten first.
struct LegacyDoubleActivities {
    /// Which activity: its provider, app (OneSignal app id, Pushwoosh application code,
    /// BuzzKit token fingerprint) and id.
    struct Key: Hashable, Sendable {
        /// The provider.
        var provider: DialectName
        /// The provider's app.
        var app: String
        /// The activity id.
        var id: String
    }

    /// What the double knows of one activity.
    struct Entry: Sendable {
        /// When it started, Unix milliseconds.
        var startedAt: Int64
        /// When it was last updated, Unix milliseconds; nil before its first update.
        var lastUpdateAt: Int64?
        /// When it ended, Unix milliseconds; nil while it runs.
        var endedAt: Int64?
    }

    private var entries: [Key: Entry] = [:]
    private var order: BoundedFIFO<Key>

    /// An empty set keeping at most `capacity` activities.
    init(capacity: Int) { order = BoundedFIFO(capacity: capacity) }

    /// Records a start (a start of an id already known starts it again).
    mutating func start(_ key: Key, at now: Int64) {
        if entries.updateValue(Entry(startedAt: now), forKey: key) == nil, let forgotten = order.append(key) {
            entries[forgotten] = nil
        }
    }

    /// Whether `key` names an activity that was started and has not ended.
    func isOpen(_ key: Key) -> Bool { entries[key].map { $0.endedAt == nil } ?? false }

    /// Records an update, or an end when `ending`; the activity must be open.
    mutating func touch(_ key: Key, ending: Bool, at now: Int64) {
        guard var entry = entries[key], entry.endedAt == nil else { return }
        entry.lastUpdateAt = now
        if ending { entry.endedAt = now }
        entries[key] = entry
    }

    /// Every kept activity of `provider` (all when nil), oldest start first, as served by
    /// `GET /_doubles/activities`.
    func json(provider: DialectName?) -> [JSONValue] {
        order.elements.compactMap { key -> JSONValue? in
            guard provider == nil || key.provider == provider, let e = entries[key] else { return nil }
            return .object([
                "provider": .string(key.provider.rawValue), "app": .string(key.app), "activity_id": .string(key.id),
                "started_at": .int(e.startedAt), "last_update_at": e.lastUpdateAt.map(JSONValue.int) ?? .null,
                "ended_at": e.endedAt.map(JSONValue.int) ?? .null, "open": .bool(e.endedAt == nil),
            ])
        }
    }
}
