import Foundation
import PushBridgeTestSupport
import Testing
import PushBridgeCore

/// `docs/field-mapping.md` is generated from the tables the translations use; it must be
/// current, and every field the provider documents must have a row.
struct FieldMappingDocumentTests {
    static let root = Repository.root

    @Test func theCommittedDocumentIsCurrent() throws {
        let committed = try String(contentsOf: Self.root.appendingPathComponent("docs/field-mapping.md"), encoding: .utf8)
        #expect(committed == FieldMappingDocument.markdown(), "docs/field-mapping.md is stale: run `make docs`")
    }

    /// Every field named in `../shared/reference/` (and the OneSignal python client 5.18 models,
    /// and the fields the translation must account for) per dialect.
    static let referenceFields: [(DialectName, [String])] = [
        (.onesignal, ["event", "activity_id", "event_attributes", "event_updates", "name", "contents", "headings", "stale_date",
                      "dismissal_date", "priority", "ios_sound", "sound", "ios_relevance_score", "idempotency_key", "include_aliases",
                      "include_subscription_ids", "included_segments", "excluded_segments", "filters", "external_id",
                      "ios_interruption_level", "apns_push_type_override", "subtitle", "is_ios", "custom_data", "content_available"]),
        (.pushwoosh, ["application", "auth", "notifications", "content", "title", "live_activity", "live_activity.event",
                      "live_activity.title", "live_activity.content-state", "live_activity.attributes-type", "live_activity.attributes",
                      "live_activity_id", "filter", "filter_code", "devices", "users", "send_date", "timezone", "apns_priority",
                      "live_activity.dismissal-date", "live_activity.relevance-score", "live_activity.stale-date", "subtitle", "ios_sound"]),
        (.buzzkit, ["to", "event", "activityId", "attributesType", "contentState", "attributes", "alert.title", "alert.body",
                    "alert.sound", "staleDate", "dismissalDate", "priority", "timestamp"]),
    ]

    @Test(arguments: referenceFields)
    func everyReferenceFieldHasARow(dialect: DialectName, fields: [String]) {
        let rows = Dialects.named(dialect).fieldMappings.map(\.field)
        for field in fields {
            let found = rows.contains { row in
                let path = row.split(separator: " ").first.map(String.init) ?? row
                return path == field || path.hasSuffix("." + field) || path.hasSuffix("]." + field)
            }
            #expect(found, "\(dialect.rawValue): \(field) has no row in the mapping table")
        }
    }
}
