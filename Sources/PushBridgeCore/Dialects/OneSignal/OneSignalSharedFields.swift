/// Fields OneSignal's start and update/end bodies share, read the same way on both routes.
struct OneSignalSharedFields {
    var staleDate: Int64?
    var priority: Int64
    var relevanceScore: JSONNumber?
    var iosSound: String?
    var contents: JSONObject?
    var headings: JSONObject?

    /// Reads the shared fields, converting millisecond dates and defaulting priority to 10.
    /// `event` is the event the request carries ("start", "update", "end"; nil when unknown).
    static func read(_ r: inout FieldReader, event: String?, findings: inout [Finding]) -> OneSignalSharedFields {
        var f = OneSignalSharedFields(priority: 10)
        f.contents = r.object(.contents)
        f.headings = r.object(.headings)
        if let d = r.integer(.stale_date) { f.staleDate = TimestampConversion.seconds(d, field: "stale_date", findings: &findings) }
        if let p = r.integer(.priority) {
            f.priority = p
        } else if r.errors.last?.field != "priority" {
            let openPush = switch event {
            case "update": "OpenPush would default an update to 5"
            case "end": "OpenPush's default on an end is also 10"
            case "start": "OpenPush's default on a start is also 10"
            default: "OpenPush would default an update to 5"
            }
            findings.append(Finding(field: "priority", kind: .defaulted,
                                    message: MessageText("no priority given: sent as 10, OneSignal's default on every event (\(openPush)); sent explicitly so the meaning never depends on OpenPush's defaults").text))
        }
        f.relevanceScore = r.number(.ios_relevance_score)
        f.iosSound = OneSignalSound.read(&r, hasAlert: f.contents != nil || f.headings != nil, findings: &findings)
        return f
    }
}
