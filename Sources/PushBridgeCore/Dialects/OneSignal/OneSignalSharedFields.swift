/// Fields OneSignal's start and update/end bodies share, read the same way on both routes.
struct OneSignalSharedFields {
    var staleDate: Int64?
    var priority: Int64
    var relevanceScore: JSONNumber?
    var iosSound: String?
    var sound: String?
    var contents: JSONObject?
    var headings: JSONObject?

    /// Reads the shared fields, converting millisecond dates and defaulting priority to 10.
    static func read(_ r: inout FieldReader, findings: inout [Finding]) -> OneSignalSharedFields {
        var f = OneSignalSharedFields(priority: 10)
        f.contents = r.object("contents")
        f.headings = r.object("headings")
        if let d = r.integer("stale_date") { f.staleDate = TimestampConversion.seconds(d, field: "stale_date", findings: &findings) }
        if let p = r.integer("priority") {
            f.priority = p
        } else if r.errors.last?.field != "priority" {
            findings.append(Finding(field: "priority", kind: .defaulted,
                                    message: "no priority given: sent as 10, OneSignal's default on every event (OpenPush would default an update to 5)"))
        }
        f.relevanceScore = r.number("ios_relevance_score")
        f.iosSound = r.string("ios_sound")
        f.sound = r.string("sound")
        return f
    }
}
