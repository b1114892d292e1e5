/// BuzzKit's `event`: what `POST /v1/live-activities/send` does.
enum BuzzKitEvent: String, Sendable {
    /// Starts an activity through the subscriber's push-to-start tokens.
    case start
    /// Pushes a new content state into a running activity.
    case update
    /// Ends a running activity.
    case end
}
