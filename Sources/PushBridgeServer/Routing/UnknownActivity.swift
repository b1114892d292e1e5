import PushBridgeCore

/// How each side says it does not know an activity, the answer that sends an update or end of
/// an activity the ledger has never seen on to the other side.
enum UnknownActivity {
    /// OpenPush's documented 404 text for an update or end of an id it has no open activity for.
    static let openPushText = "no live activity with that id is open"

    /// Whether every result is OpenPush's documented 404 "no live activity with that id is open".
    static func openPush(_ results: [UpstreamResult]) -> Bool {
        !results.isEmpty && results.allSatisfy {
            if case .rejected(404, let message, _) = $0 { message.contains(openPushText) } else { false }
        }
    }

    /// Whether a legacy provider's answer says it does not know the activity: a 404. OneSignal
    /// documents its 404 on the update route; Pushwoosh and BuzzKit document no error for an id
    /// they never started, and their 404 is read the same way (nothing else is: a 400, a 5xx or
    /// a transport failure stays the answer).
    static func legacy(status: Int?) -> Bool { status == 404 }
}
