/// The result of translating one inbound request: the OpenPush request(s) to send, an optional
/// schedule, every finding, and the error when the request cannot be forwarded.
public struct Translation: Sendable, Equatable {
    /// The dialect the caller spoke.
    public var dialect: DialectName
    /// The route the caller hit.
    public var route: RouteKind
    /// The source app (OneSignal app id, Pushwoosh application code, BuzzKit workspace).
    public var sourceApp: String?
    /// The OpenPush requests, in the order the caller's notifications came.
    public var requests: [OpenPushRequest]
    /// The findings, in the order they were made.
    public var findings: [Finding]
    /// Set when the request cannot be forwarded; `requests` is then empty. The initializer adds a
    /// `rejected` finding for it when the findings hold none.
    public var error: TranslationError?

    /// A translation.
    public init(dialect: DialectName, route: RouteKind, sourceApp: String? = nil, requests: [OpenPushRequest] = [], findings: [Finding] = [], error: TranslationError? = nil) {
        self.dialect = dialect
        self.route = route
        self.sourceApp = sourceApp
        self.requests = requests
        self.findings = findings
        self.error = error
        if let error, !findings.contains(where: { $0.kind == .rejected }) {
            self.findings.append(Finding(field: error.field, kind: .rejected, message: error.message))
        }
    }

    /// True when the translation can be forwarded.
    public var isForwardable: Bool { error == nil && !requests.isEmpty }

    /// The scheduled sends, or nil when every request goes now.
    public var schedule: [ScheduledSend]? {
        let s = requests.enumerated().compactMap { i, r in r.sendAt.map { ScheduledSend(request: i, time: $0) } }
        return s.isEmpty ? nil : s
    }

    /// The `pushbridge translate --json` shape: requests, schedule, findings, error.
    public var json: JSONValue {
        var o = JSONObject()
        o["requests"] = .array(requests.map(\.json))
        if let schedule {
            o["schedule"] = .object(["sends": .array(schedule.map(\.json))])
        } else {
            o["schedule"] = .null
        }
        o["findings"] = .array(findings.map(\.json))
        o["error"] = error.map { .object(["field": .string($0.field), "rule": .string($0.rule), "message": .string($0.message)]) } ?? .null
        return .object(o)
    }
}

/// One request of a translation that is to be sent later.
public struct ScheduledSend: Sendable, Equatable {
    /// The index into `Translation.requests`.
    public var request: Int
    /// When.
    public var time: SendTime

    /// JSON for reports and the CLI.
    public var json: JSONValue {
        .object(["request": .int(Int64(request)), "send_at": .int(time.unixSeconds), "send_date": .string(time.sendDate), "timezone": .string(time.timezone)])
    }
}

/// A send time as the caller wrote it and as an instant.
public struct SendTime: Sendable, Equatable {
    /// The instant, in Unix seconds.
    public var unixSeconds: Int64
    /// The caller's `send_date` text.
    public var sendDate: String
    /// The time zone it was read in.
    public var timezone: String

    /// A send time.
    public init(unixSeconds: Int64, sendDate: String, timezone: String) {
        self.unixSeconds = unixSeconds
        self.sendDate = sendDate
        self.timezone = timezone
    }
}
