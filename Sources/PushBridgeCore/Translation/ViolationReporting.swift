/// Turns the OpenPush rules a finished translation still breaks into the caller's error, so a
/// request OpenPush would answer 400 is refused here with the caller's field names.
public enum ViolationReporting {
    /// nil when there are no violations; otherwise one error naming every broken rule.
    /// `fieldName` maps an OpenPush field to the caller's field path.
    public static func error(for violations: [RuleViolation], fieldName: (String) -> String = { $0 }) -> TranslationError? {
        TranslationError.combine(violations.map { v in
            let f = fieldName(v.field)
            return TranslationError(field: f, rule: v.rule, message: "\(f): \(v.rule) (OpenPush would reject this request)")
        })
    }
}
