import PushBridgeCore

/// A store that keeps the sandbox's state in an SQLite file (`pushbridge sandbox --db FILE`).
/// Reads are served from memory, loaded at open; every write goes to the file first.
public final class SQLiteSandboxStore: SandboxStore {
    private let db: SQLiteDatabase
    private let memory = MemorySandboxStore()

    /// The schema, as numbered migrations.
    static var migrator: SQLiteMigrator {
        var m = SQLiteMigrator()
        m.register(1, "sandbox state", sql: """
            CREATE TABLE sandbox_apps (id TEXT PRIMARY KEY, rest_key TEXT NOT NULL, bundle_id TEXT NOT NULL);
            CREATE TABLE sandbox_devices (app_id TEXT NOT NULL, subscription_id TEXT NOT NULL, json TEXT NOT NULL,
                PRIMARY KEY (app_id, subscription_id));
            CREATE TABLE sandbox_activities (app_id TEXT NOT NULL, subscription_id TEXT NOT NULL, activity_id TEXT NOT NULL,
                activity_type TEXT NOT NULL, update_token TEXT NOT NULL, started_at INTEGER NOT NULL, stale_at INTEGER NOT NULL,
                ended_at INTEGER, PRIMARY KEY (app_id, subscription_id, activity_id));
            CREATE TABLE sandbox_idempotency (app_id TEXT NOT NULL, key TEXT NOT NULL, notification_id TEXT NOT NULL,
                created_at INTEGER NOT NULL, PRIMARY KEY (app_id, key));
            CREATE TABLE sandbox_sends (seq INTEGER PRIMARY KEY AUTOINCREMENT, app_id TEXT NOT NULL, json TEXT NOT NULL);
            """)
        return m
    }

    /// Opens (creating if needed) the database at `path` and loads its state.
    public init(path: String) throws {
        db = try SQLiteDatabase(path: path)
        try db.configureDurableWAL()
        try Self.migrator.migrate(db)
        try load()
    }

    private func load() throws {
        for r in try db.rows("SELECT id, rest_key, bundle_id FROM sandbox_apps") {
            try memory.putApp(SandboxApp(id: r[0].textValue ?? "", restKey: r[1].textValue ?? "", bundleId: r[2].textValue ?? ""))
        }
        for r in try db.rows("SELECT app_id, json FROM sandbox_devices") {
            if let d = SandboxDevice(appId: r[0].textValue ?? "", json: try JSONParser.parse(r[1].textValue ?? "null")) { try memory.putDevice(d) }
        }
        for r in try db.rows("SELECT app_id, subscription_id, activity_id, activity_type, update_token, started_at, stale_at, ended_at FROM sandbox_activities") {
            try memory.putActivity(SandboxActivity(
                appId: r[0].textValue ?? "", subscriptionId: r[1].textValue ?? "", activityId: r[2].textValue ?? "",
                activityType: r[3].textValue ?? "", updateToken: r[4].textValue ?? "", startedAt: r[5].integerValue ?? 0,
                staleAt: r[6].integerValue ?? 0, endedAt: r[7].integerValue))
        }
        for r in try db.rows("SELECT app_id, key, notification_id, created_at FROM sandbox_idempotency") {
            try memory.putIdempotency(SandboxIdempotencyRecord(appId: r[0].textValue ?? "", key: r[1].textValue ?? "",
                                                               notificationId: r[2].textValue ?? "", createdAt: r[3].integerValue ?? 0))
        }
        for r in try db.rows("SELECT json FROM sandbox_sends ORDER BY seq") {
            if let o = try JSONParser.parse(r[0].textValue ?? "null").objectValue { try memory.appendSend(o) }
        }
    }

    /// See `SandboxStore`.
    public func app(_ id: String) -> SandboxApp? { memory.app(id) }
    /// See `SandboxStore`.
    public func allApps() -> [SandboxApp] { memory.allApps() }
    /// See `SandboxStore`.
    public func putApp(_ app: SandboxApp) throws {
        try db.execute("INSERT OR REPLACE INTO sandbox_apps (id, rest_key, bundle_id) VALUES (?, ?, ?)",
                       [.text(app.id), .text(app.restKey), .text(app.bundleId)])
        try memory.putApp(app)
    }

    /// See `SandboxStore`.
    public func device(app: String, subscriptionId: String) -> SandboxDevice? { memory.device(app: app, subscriptionId: subscriptionId) }
    /// See `SandboxStore`.
    public func devices(app: String) -> [SandboxDevice] { memory.devices(app: app) }
    /// See `SandboxStore`.
    public func putDevice(_ device: SandboxDevice) throws {
        try db.execute("INSERT OR REPLACE INTO sandbox_devices (app_id, subscription_id, json) VALUES (?, ?, ?)",
                       [.text(device.appId), .text(device.subscriptionId), .text(JSONWriter.string(device.json))])
        try memory.putDevice(device)
    }

    /// See `SandboxStore`.
    public func activities(app: String, activityId: String) -> [SandboxActivity] { memory.activities(app: app, activityId: activityId) }
    /// See `SandboxStore`.
    public func activities(app: String, subscriptionId: String) -> [SandboxActivity] { memory.activities(app: app, subscriptionId: subscriptionId) }
    /// See `SandboxStore`.
    public func putActivity(_ a: SandboxActivity) throws {
        try db.execute("""
            INSERT OR REPLACE INTO sandbox_activities
            (app_id, subscription_id, activity_id, activity_type, update_token, started_at, stale_at, ended_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(a.appId), .text(a.subscriptionId), .text(a.activityId), .text(a.activityType), .text(a.updateToken),
                  .integer(a.startedAt), .integer(a.staleAt), a.endedAt.map(SQLiteValue.integer) ?? .null])
        try memory.putActivity(a)
    }

    /// See `SandboxStore`.
    public func idempotency(app: String, key: String) -> SandboxIdempotencyRecord? { memory.idempotency(app: app, key: key) }
    /// See `SandboxStore`.
    public func putIdempotency(_ r: SandboxIdempotencyRecord) throws {
        try db.execute("INSERT OR REPLACE INTO sandbox_idempotency (app_id, key, notification_id, created_at) VALUES (?, ?, ?, ?)",
                       [.text(r.appId), .text(r.key), .text(r.notificationId), .integer(r.createdAt)])
        try memory.putIdempotency(r)
    }

    /// See `SandboxStore`.
    public func appendSend(_ send: JSONObject) throws {
        try db.execute("INSERT INTO sandbox_sends (app_id, json) VALUES (?, ?)",
                       [.text(send["app_id"]?.stringValue ?? ""), .text(JSONWriter.string(.object(send)))])
        try memory.appendSend(send)
    }
    /// See `SandboxStore`.
    public func sends(app: String?) -> [JSONObject] { memory.sends(app: app) }

    /// See `SandboxStore`.
    public func nextSequence() -> Int64 { memory.nextSequence() }
}
