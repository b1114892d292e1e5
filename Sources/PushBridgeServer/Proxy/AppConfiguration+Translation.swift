import PushBridgeCore

extension AppConfiguration {
    /// The translation context for a request to this app: its OpenPush app id, segment map (and
    /// what an unmapped segment does) and
    /// devices mapping, at time `now`.
    public func translationContext(now: Int64, requestId: String?) -> TranslationContext {
        let targeting: TranslationContext.DeviceTargeting
        switch devices {
        case .subscriptionIds: targeting = .subscriptionIds
        case .alias(let label): targeting = .alias(label)
        }
        return TranslationContext(now: now, requestId: requestId, targetAppId: openPushAppId, sourceAppId: sourceAppId,
                                  segmentMap: segmentMap.isEmpty ? nil : segmentMap, unmappedSegments: unmappedSegments,
                                  deviceTargeting: targeting, deviceTargetingConfigured: true)
    }
}
