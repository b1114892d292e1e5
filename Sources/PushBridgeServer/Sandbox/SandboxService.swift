import PushBridgeCore
import Synchronization

/// A local OpenPush double that enforces OpenPush's documented Live Activity rules. Mount
/// `handle` on any HTTP server, or call it in process.
public final class SandboxService: Sendable {
    /// The clock every window, limit and timestamp is read from.
    public let clock: SandboxClock
    private let engine: Mutex<SandboxEngine>

    /// A sandbox over a store (in memory by default).
    /// - Parameters:
    ///   - clock: the movable clock.
    ///   - store: where state lives; `MemorySandboxStore` unless persistence is wanted.
    ///   - options: behaviour switches.
    public init(clock: SandboxClock = SandboxClock(), store: sending any SandboxStore = MemorySandboxStore(), options: SandboxOptions = SandboxOptions()) {
        self.clock = clock
        engine = Mutex(SandboxEngine(store: store, clock: clock, options: options))
    }

    /// Serves one request: the sending routes, the `/v1` device routes and `/_sandbox/…`.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        handleSync(request)
    }

    /// `handle` without suspension (the work is synchronous under the sandbox's lock).
    public func handleSync(_ request: HTTPRequest) -> HTTPResponse {
        engine.withLock { $0.handle(request) }
    }

    /// This service as an `HTTPHandler`.
    public var handler: HTTPHandler {
        { [self] request in await handle(request) }
    }

    /// Applies a seed (apps, devices, tokens, activities) to the state.
    public func apply(_ seed: SandboxSeed) throws {
        try engine.withLock { try seed.apply(to: $0.store, now: clock.now) }
    }

    /// Every accepted send, oldest first (one app's when `app` is given).
    public func sends(app: String? = nil) -> [JSONObject] {
        engine.withLock { $0.store.sends(app: app) }
    }
}

/// Behaviour switches of the sandbox.
public struct SandboxOptions: Sendable {
    /// When true, each device reached by a start behaves as iOS does: it starts the activity
    /// and registers an update token for it (as `POST /v1/apps/{app}/live-activities` would),
    /// so an update can follow a start without a real device.
    public var simulateDeviceRegistration: Bool

    /// The rate limit's window in seconds. Default 60, OpenPush's; a shorter one lets a test
    /// cross several windows without waiting minutes.
    public var rateWindowSeconds: Int64

    /// Options.
    public init(simulateDeviceRegistration: Bool = true, rateWindowSeconds: Int64 = OpenPushLimits.rateLimitWindowSeconds) {
        self.simulateDeviceRegistration = simulateDeviceRegistration
        self.rateWindowSeconds = rateWindowSeconds
    }
}

/// The sandbox's state and logic; only ever used under `SandboxService`'s lock.
final class SandboxEngine {
    let store: any SandboxStore
    let clock: SandboxClock
    let options: SandboxOptions
    var rateLimiter: SandboxRateLimiter

    init(store: any SandboxStore, clock: SandboxClock, options: SandboxOptions) {
        self.store = store
        self.clock = clock
        self.options = options
        self.rateLimiter = SandboxRateLimiter(windowSeconds: options.rateWindowSeconds)
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        do {
            return try route(request)
        } catch {
            return SandboxResponses.error(500, "store: \(error)")
        }
    }

    private func route(_ request: HTTPRequest) throws -> HTTPResponse {
        switch SandboxRoute.match(method: request.method, path: request.path) {
        case .start(let app, let type): return try start(request, appId: app, activityType: type)
        case .notify(let app, let id): return try notify(request, appId: app, activityId: id)
        case .registerPushToStart(let app): return try registerPushToStart(request, appId: app)
        case .removePushToStart(let app): return try removePushToStart(request, appId: app)
        case .registerActivity(let app): return try registerActivity(request, appId: app)
        case .endActivity(let app, let id): return try endActivity(request, appId: app, activityId: id)
        case .registerDevice(let app): return try registerDevice(request, appId: app)
        case .retireDevice(let app, let sub): return try retireDevice(appId: app, subscriptionId: sub)
        case .listSends: return listSends(request)
        case .listDevices: return listDevices(request)
        case .listActivities: return listActivities(request)
        case .readClock: return .json(200, .object(["now": .int(clock.now)]))
        case .moveClock: return moveClock(request)
        case .createApp: return try createApp(request)
        case .methodNotAllowed(let allowed):
            return SandboxResponses.error(405, "method: only \(allowed) is allowed on this path", headers: [("Allow", allowed)])
        case .badPath: return SandboxResponses.error(400, "path: malformed percent-encoding")
        case .notFound: return SandboxResponses.error(404, "path: no such route")
        }
    }

    /// Auth, rate limit and body parsing shared by the two sending routes.
    func sendingPreamble(_ request: HTTPRequest, appId: String) -> SandboxOutcome<(SandboxApp, JSONObject)> {
        let app = store.app(appId)
        switch SandboxAuth.check(request, app: app) {
        case .missing: return .fail(SandboxResponses.error(401, SandboxAuth.missingMessage, headers: [("WWW-Authenticate", "Key")]))
        case .denied: return .fail(SandboxResponses.error(403, SandboxAuth.deniedMessage))
        case .allowed: break
        }
        guard let app else { return .fail(SandboxResponses.error(403, SandboxAuth.deniedMessage)) }
        guard rateLimiter.admit(app: app.id, now: clock.now) else {
            let window = rateLimiter.windowSeconds
            let message = "rate_limit: at most \(OpenPushLimits.rateLimitCount) requests per \(window) seconds per app on the sending routes"
            return .fail(SandboxResponses.error(429, message, headers: [("Retry-After", String(window))]))
        }
        return SandboxResponses.objectBody(request).map { (app, $0) }
    }
}
