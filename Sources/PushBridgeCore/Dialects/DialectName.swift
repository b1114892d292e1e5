/// The shape a caller speaks.
public enum DialectName: String, Sendable, CaseIterable, Codable {
    /// OneSignal's Live Activity REST API.
    case onesignal
    /// Pushwoosh's `/json/1.3` Live Activity API.
    case pushwoosh
    /// BuzzKit's `/v1/live-activities/send`.
    case buzzkit
}

/// Which of a dialect's routes a request hit.
public enum RouteKind: String, Sendable, CaseIterable, Codable {
    /// Starts an activity (OneSignal start, Pushwoosh startLiveActivity).
    case start
    /// Updates or ends an activity (OneSignal notifications, Pushwoosh updateLiveActivity).
    case update
    /// BuzzKit's single send route (start, update or end by `event`).
    case send
}
