import PushBridgeCore

/// Builds the translation context for `pushbridge translate`: without `--config`, app ids pass
/// through unchanged and nothing is mapped.
enum TranslateContextLoader {
    static func context(configPath: String?, path: String, body: [UInt8], now: Int64) -> Result<TranslationContext, UsageError> {
        guard configPath == nil else {
            return .failure(UsageError("--config is not supported yet; run without it to pass app ids through"))
        }
        return .success(TranslationContext(now: now))
    }
}
