/// OpenPush's field rules for the sending routes. Each validator returns every broken rule.
public enum OpenPushRules {
    /// The rules of the start table.
    public static func validate(_ s: OpenPushStart) -> [RuleViolation] {
        var v: [RuleViolation] = []
        if s.event != "start" { v.append(.init(field: "event", rule: "must be exactly \"start\" on this route")) }
        checkActivityId(s.activityId, field: "activity_id", into: &v)
        checkActivityId(s.activityType, field: "activity_type", into: &v)
        checkNonEmptyObject(s.eventAttributes, field: "event_attributes", into: &v)
        checkNonEmptyObject(s.eventUpdates, field: "event_updates", into: &v)
        checkName(s.name, into: &v)
        checkLanguageMap(s.contents, field: "contents", required: true, into: &v)
        checkLanguageMap(s.headings, field: "headings", required: true, into: &v)
        checkDate(s.staleDate, field: "stale_date", into: &v)
        if s.dismissalDate != nil { v.append(.init(field: "dismissal_date", rule: "is rejected on a start")) }
        checkPriority(s.priority, into: &v)
        checkRelevance(s.relevanceScore, into: &v)
        if let key = s.idempotencyKey, !isUUID(key) { v.append(.init(field: "idempotency_key", rule: "must be a UUID")) }
        checkTargeting(s, into: &v)
        return v
    }

    /// The rules of the update/end table.
    public static func validate(_ u: OpenPushUpdate) -> [RuleViolation] {
        var v: [RuleViolation] = []
        checkActivityId(u.activityId, field: "activity_id", into: &v)
        if u.event != "update" && u.event != "end" { v.append(.init(field: "event", rule: "must be \"update\" or \"end\"")) }
        checkNonEmptyObject(u.eventUpdates, field: "event_updates", into: &v)
        checkName(u.name, into: &v)
        checkLanguageMap(u.contents, field: "contents", required: false, into: &v)
        checkLanguageMap(u.headings, field: "headings", required: false, into: &v)
        checkDate(u.staleDate, field: "stale_date", into: &v)
        checkDate(u.dismissalDate, field: "dismissal_date", into: &v)
        if u.dismissalDate != nil, u.event == "update" { v.append(.init(field: "dismissal_date", rule: "is only valid on end")) }
        checkPriority(u.priority, into: &v)
        checkRelevance(u.relevanceScore, into: &v)
        return v
    }

    /// True when a string is blank (empty or only white space).
    public static func isBlank(_ s: String?) -> Bool {
        guard let s else { return true }
        for b in s.utf8 {
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { continue }
            if b < 0x80 { return false }
            return s.unicodeScalars.allSatisfy { $0.properties.isWhitespace }
        }
        return true
    }

    /// True for a canonical 8-4-4-4-12 hex UUID (any case). Read over the string's own bytes:
    /// copying them into an array first was an allocation and about 1,000 instructions per
    /// start with an idempotency key (issue 31, branch `translate4`).
    public static func isUUID(_ s: String) -> Bool {
        if let answer = s.utf8.withContiguousStorageIfAvailable(isUUID) { return answer }
        return Array(s.utf8).withUnsafeBufferPointer(isUUID)
    }

    /// ``isUUID(_:)-(String)`` over UTF-8 bytes: the four dashes first, then each run of hex
    /// digits between them (issue 31, branch `translate8`: asking at every byte whether it was
    /// a dash's place, and three ranges for a hex digit, was about 470 instructions a key).
    private static func isUUID(_ u: UnsafeBufferPointer<UInt8>) -> Bool {
        guard u.count == 36 else { return false }
        let dash = UInt8(ascii: "-")
        guard u[8] == dash, u[13] == dash, u[18] == dash, u[23] == dash else { return false }
        return hexRun(u, 0, 8) && hexRun(u, 9, 13) && hexRun(u, 14, 18) && hexRun(u, 19, 23) && hexRun(u, 24, 36)
    }

    /// True when `u[from..<to]` are all hex digits (``isHexByte(_:)``).
    @inline(__always)
    private static func hexRun(_ u: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        for i in from..<to where !isHexByte(u[i]) { return false }
        return true
    }

    /// ``isHex(_:)`` in two subtractions: a digit is 0x30–0x39, and a letter with its case bit
    /// set (`| 0x20`: `A`–`F` become `a`–`f`, and no other byte becomes one) is 0x61–0x66.
    @inline(__always)
    static func isHexByte(_ c: UInt8) -> Bool {
        c &- 0x30 < 10 || (c | 0x20) &- 0x61 < 6
    }

    /// True for an APNs token as OpenPush accepts it: hex, even length, 64–512 characters.
    public static func isValidToken(_ s: String) -> Bool {
        let u = s.utf8
        return OpenPushLimits.tokenLengthRange.contains(u.count) && u.count % 2 == 0 && u.allSatisfy(isHex)
    }

    private static func isHex(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
    }

    /// An id that goes into the URL path (activity id, activity type): see ``OpenPushPath/problem(segment:)``.
    private static func checkActivityId(_ id: String?, field: String, into v: inout [RuleViolation]) {
        if isBlank(id) { v.append(.init(field: field, rule: "is required and must be non-blank")) }
        else if id!.containsUTF8(UInt8(ascii: "/")), id!.contains("/") { v.append(.init(field: field, rule: "must not contain /")) }
        else if let problem = OpenPushPath.problem(segment: id!) { v.append(.init(field: field, rule: problem)) }
    }

    private static func checkNonEmptyObject(_ o: JSONObject?, field: String, into v: inout [RuleViolation]) {
        guard let o else { v.append(.init(field: field, rule: "is required")); return }
        if o.isEmpty { v.append(.init(field: field, rule: "must be a non-empty object")) }
    }

    private static func checkName(_ name: String?, into v: inout [RuleViolation]) {
        if isBlank(name) { v.append(.init(field: "name", rule: "is required and must be non-blank")) }
        else if name!.utf8.count > OpenPushLimits.nameMaxLength, name!.count > OpenPushLimits.nameMaxLength {
            v.append(.init(field: "name", rule: MessageText("must be at most \(OpenPushLimits.nameMaxLength) characters").text))
        }
    }

    private static func checkLanguageMap(_ map: JSONObject?, field: String, required: Bool, into v: inout [RuleViolation]) {
        guard let map else {
            if required { v.append(.init(field: field, rule: "is required and must contain a non-blank en")) }
            return
        }
        for m in map.members where m.value.stringValue == nil {
            v.append(.init(field: MessageText("\(field).\(m.key)").text, rule: "must be a string"))
        }
        if isBlank(map["en"]?.stringValue) { v.append(.init(field: MessageText("\(field).en").text, rule: "must be present and non-blank")) }
    }

    private static func checkDate(_ d: Int64?, field: String, into v: inout [RuleViolation]) {
        if let d, d >= OpenPushLimits.millisecondThreshold {
            v.append(.init(field: field, rule: "must be Unix seconds; a value ≥ 1e11 is rejected as milliseconds"))
        }
    }

    private static func checkPriority(_ p: Int64?, into v: inout [RuleViolation]) {
        if let p, p != 5, p != 10 { v.append(.init(field: "priority", rule: "must be exactly 5 or 10")) }
    }

    private static func checkRelevance(_ r: JSONNumber?, into v: inout [RuleViolation]) {
        if let r, !(0...1).contains(r.doubleValue) { v.append(.init(field: "ios_relevance_score", rule: "must be in [0, 1]")) }
    }

    private static func checkTargeting(_ s: OpenPushStart, into v: inout [RuleViolation]) {
        let n = s.targetingCount
        if n == 0 {
            v.append(.init(field: "targeting", rule: "exactly one of include_aliases, include_subscription_ids, included_segments, filters is required"))
        } else if n > 1 {
            v.append(.init(field: "targeting", rule: "exactly one of include_aliases, include_subscription_ids, included_segments, filters is allowed"))
        }
        if s.excludedSegments != nil, s.includedSegments == nil {
            v.append(.init(field: "excluded_segments", rule: "is only valid alongside included_segments"))
        }
        var ids = s.includeSubscriptionIds?.count ?? 0
        if let aliases = s.includeAliases {
            if aliases.isEmpty { v.append(.init(field: "include_aliases", rule: "must name at least one alias")) }
            for m in aliases.members {
                switch m.value {
                case .string(let id):
                    ids += 1
                    if isBlank(id) { v.append(.init(field: MessageText("include_aliases.\(m.key)").text, rule: "must be a non-blank id")) }
                case .array(let list) where list.allSatisfy({ $0.stringValue != nil }):
                    ids += list.count
                default:
                    v.append(.init(field: MessageText("include_aliases.\(m.key)").text, rule: "must be an id or a list of ids"))
                }
            }
        }
        if let subs = s.includeSubscriptionIds, subs.isEmpty {
            v.append(.init(field: "include_subscription_ids", rule: "must not be empty"))
        }
        if let segs = s.includedSegments, segs.isEmpty {
            v.append(.init(field: "included_segments", rule: "must not be empty"))
        }
        if ids > OpenPushLimits.maxTargetIds {
            v.append(.init(field: "targeting", rule: MessageText("at most \(OpenPushLimits.maxTargetIds) target ids are accepted per request").text))
        }
    }
}
