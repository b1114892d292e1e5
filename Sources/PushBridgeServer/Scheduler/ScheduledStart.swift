import PushBridgeCore

/// One start PushBridge holds until its `send_date`, as the scheduler database stores it.
public struct ScheduledStart: Sendable, Equatable {
    /// Where it is in its life.
    public enum State: String, Sendable, CaseIterable {
        /// Waiting for its time.
        case pending
        /// Claimed by a scheduler that is sending it (or died while sending it).
        case sending
        /// OpenPush answered 2xx.
        case sent
        /// OpenPush refused it or never answered within the attempts.
        case failed
        /// Cancelled with `pushbridge scheduled cancel`.
        case cancelled
    }

    /// The message id the caller was given (`sch_…`).
    public var id: String
    /// The inbound request it came from (the audit row).
    public var requestId: String
    /// Its index in that request's translation.
    public var ordinal: Int
    /// The configured app's name (its REST key is read from the configuration at send time).
    public var appName: String
    /// The OpenPush app.
    public var targetApp: String
    /// When to send, Unix milliseconds.
    public var sendAt: Int64
    /// The caller's `send_date` text and time zone.
    public var sendDate: String
    /// The time zone `sendDate` was read in.
    public var timezone: String
    /// The state.
    public var state: State
    /// The OpenPush request; nil once the send is final (the body is deleted then).
    public var request: OpenPushRequest?
    /// The OpenPush message id once sent.
    public var notificationId: String?
    /// The last upstream status.
    public var upstreamStatus: Int?
    /// Why it failed.
    public var error: String?
    /// When it became final (sent, failed or cancelled), Unix milliseconds.
    public var finishedAt: Int64?

    /// A pending start.
    public init(id: String, requestId: String, ordinal: Int, appName: String, request: OpenPushRequest, time: SendTime) {
        self.id = id
        self.requestId = requestId
        self.ordinal = ordinal
        self.appName = appName
        self.targetApp = request.appId
        self.sendAt = time.unixSeconds * 1000
        self.sendDate = time.sendDate
        self.timezone = time.timezone
        self.state = .pending
        self.request = request
    }

    /// A new message id.
    public static func makeId(requestId: String, ordinal: Int) -> String {
        "sch_" + Fingerprint.hex(Fingerprint.sha256("\(requestId):\(ordinal)").prefix(12))
    }
}
