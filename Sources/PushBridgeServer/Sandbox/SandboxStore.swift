import PushBridgeCore

/// Where the sandbox keeps its state. Calls are made one at a time, under the service's lock,
/// so implementations need no locking of their own.
public protocol SandboxStore: AnyObject {
    /// An app by id.
    func app(_ id: String) -> SandboxApp?
    /// Every app.
    func allApps() -> [SandboxApp]
    /// Creates or replaces an app.
    func putApp(_ app: SandboxApp) throws

    /// A device by subscription id.
    func device(app: String, subscriptionId: String) -> SandboxDevice?
    /// Every device of an app, in registration order.
    func devices(app: String) -> [SandboxDevice]
    /// Creates or replaces a device.
    func putDevice(_ device: SandboxDevice) throws

    /// Every registration of an activity id on an app (one per device).
    func activities(app: String, activityId: String) -> [SandboxActivity]
    /// Every activity registration of one subscription.
    func activities(app: String, subscriptionId: String) -> [SandboxActivity]
    /// Creates or replaces an activity registration.
    func putActivity(_ activity: SandboxActivity) throws

    /// The idempotency record for a key on an app.
    func idempotency(app: String, key: String) -> SandboxIdempotencyRecord?
    /// Records an idempotency key.
    func putIdempotency(_ record: SandboxIdempotencyRecord) throws

    /// Appends an accepted send (the JSON shown by `GET /_sandbox/sends`).
    func appendSend(_ send: JSONObject) throws
    /// Accepted sends, oldest first; only one app's when `app` is given.
    func sends(app: String?) -> [JSONObject]

    /// The next value of a monotonic counter (registration order, ids).
    func nextSequence() -> Int64
}
