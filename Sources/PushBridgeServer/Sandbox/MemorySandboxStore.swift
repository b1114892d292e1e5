import PushBridgeCore

/// The default store: everything in memory, gone when the process ends.
public final class MemorySandboxStore: SandboxStore {
    private var apps: [String: SandboxApp] = [:]
    private var devicesByApp: [String: [String: SandboxDevice]] = [:]
    private var activitiesByKey: [String: SandboxActivity] = [:]
    private var idempotencyByKey: [String: SandboxIdempotencyRecord] = [:]
    private var sendLog: [JSONObject] = []
    private var sequence: Int64 = 0

    /// An empty store.
    public init() {}

    private static func activityKey(_ a: SandboxActivity) -> String { "\(a.appId)\u{0}\(a.subscriptionId)\u{0}\(a.activityId)" }

    /// See `SandboxStore`.
    public func app(_ id: String) -> SandboxApp? { apps[id] }
    /// See `SandboxStore`.
    public func allApps() -> [SandboxApp] { apps.values.sorted { $0.id < $1.id } }
    /// See `SandboxStore`.
    public func putApp(_ app: SandboxApp) throws { apps[app.id] = app }

    /// See `SandboxStore`.
    public func device(app: String, subscriptionId: String) -> SandboxDevice? { devicesByApp[app]?[subscriptionId] }
    /// See `SandboxStore`.
    public func devices(app: String) -> [SandboxDevice] {
        (devicesByApp[app]?.values.map { $0 } ?? []).sorted { $0.sequence < $1.sequence }
    }
    /// See `SandboxStore`.
    public func putDevice(_ device: SandboxDevice) throws {
        sequence = max(sequence, device.sequence)
        devicesByApp[device.appId, default: [:]][device.subscriptionId] = device
    }

    /// See `SandboxStore`.
    public func activities(app: String, activityId: String) -> [SandboxActivity] {
        activitiesByKey.values.filter { $0.appId == app && $0.activityId == activityId }.sorted { $0.subscriptionId < $1.subscriptionId }
    }
    /// See `SandboxStore`.
    public func activities(app: String, subscriptionId: String) -> [SandboxActivity] {
        activitiesByKey.values.filter { $0.appId == app && $0.subscriptionId == subscriptionId }.sorted { $0.activityId < $1.activityId }
    }
    /// See `SandboxStore`.
    public func putActivity(_ activity: SandboxActivity) throws { activitiesByKey[Self.activityKey(activity)] = activity }

    /// See `SandboxStore`.
    public func idempotency(app: String, key: String) -> SandboxIdempotencyRecord? { idempotencyByKey["\(app)\u{0}\(key)"] }
    /// See `SandboxStore`.
    public func putIdempotency(_ record: SandboxIdempotencyRecord) throws { idempotencyByKey["\(record.appId)\u{0}\(record.key)"] = record }

    /// See `SandboxStore`.
    public func appendSend(_ send: JSONObject) throws { sendLog.append(send) }
    /// See `SandboxStore`.
    public func sends(app: String?) -> [JSONObject] {
        guard let app else { return sendLog }
        return sendLog.filter { $0["app_id"]?.stringValue == app }
    }

    /// See `SandboxStore`.
    public func nextSequence() -> Int64 {
        sequence += 1
        return sequence
    }
}
