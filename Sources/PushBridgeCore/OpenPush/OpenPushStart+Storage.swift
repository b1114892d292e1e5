/// The fields of an ``OpenPushStart``, as the struct held them before it kept them in one box
/// (issue 31, branch `translate4`): compared member by member, as the struct was.
struct OpenPushStartFields: Sendable, Equatable {
    /// OpenPush app id (path).
    var appId: String
    /// The ActivityAttributes type name (path); forced as `attributes-type`.
    var activityType: String
    /// Must be exactly "start".
    var event: String? = "start"
    /// Non-blank, no `/`.
    var activityId: String?
    /// Non-empty object → ActivityKit attributes.
    var eventAttributes: JSONObject?
    /// Non-empty object → content-state.
    var eventUpdates: JSONObject?
    /// Non-blank, ≤ 128 characters.
    var name: String?
    /// Language map with a non-blank `en`.
    var contents: JSONObject?
    /// Language map with a non-blank `en`.
    var headings: JSONObject?
    /// Unix seconds; ≥ 1e11 is rejected as milliseconds.
    var staleDate: Int64?
    /// Rejected on a start; present only so a decoded request can be validated.
    var dismissalDate: Int64?
    /// Exactly 5 or 10; OpenPush defaults to 10.
    var priority: Int64?
    /// In [0, 1].
    var relevanceScore: JSONNumber?
    /// First non-blank of `ios_sound` / `sound` wins.
    var iosSound: String?
    /// See `iosSound`.
    var sound: String?
    /// A UUID; replays within 30 days return the first notification id.
    var idempotencyKey: String?
    /// Targeting: label → id or list of ids.
    var includeAliases: JSONObject?
    /// Targeting: subscription ids.
    var includeSubscriptionIds: [String]?
    /// Targeting: segment ids.
    var includedSegments: [String]?
    /// Only valid alongside `includedSegments`.
    var excludedSegments: [String]?
    /// Targeting: OneSignal-style filter list.
    var filters: [JSONValue]?
}

/// The one box an ``OpenPushStart``'s fields live in, shared by its copies until one of them
/// is changed (copy on write: ``OpenPushStart`` makes a new box before changing a shared one).
/// A copy of a start is then one retain, not a retain of each of its twenty-odd strings,
/// objects and arrays (issue 31: `case .start(let s)` copied the start out of the request's
/// box at each of three sites of a translation, about 840 instructions each with its release).
/// `@unchecked Sendable`: the box is changed only while one start holds it.
final class OpenPushStartStorage: @unchecked Sendable {
    /// The fields.
    @exclusivity(unchecked) var fields: OpenPushStartFields

    /// A box holding `fields`.
    init(_ fields: OpenPushStartFields) { self.fields = fields }
}
