import Testing
@testable import PushBridgeCore

/// A BuzzKit required field's reason is made only when the field is missing (issue 31, branch
/// `translate`): the rejection must still say it in full, naming the event, on update and end.
struct BuzzKitRequiredReasonTests {
    static let events = ["update", "end"]

    @Test(arguments: events)
    func aMissingActivityIdIsRejectedWithItsWholeReason(_ event: String) {
        #expect(!Self.events.isEmpty)
        let body = #"{"event":"\#(event)","contentState":{"s":1}}"#
        let t = BuzzKitDialect().translate(route: InboundRoute(dialect: .buzzkit, kind: .send), body: Array(body.utf8),
                                           context: TranslationContext(now: 1_781_049_600, requestId: "req-1"))
        #expect(t.requests.isEmpty)
        #expect(t.error?.field == "activityId")
        #expect(t.error?.rule == "is required on \(event) (the Activity.id the device registered, or the activityId PushBridge returned for a server start)")
    }
}
