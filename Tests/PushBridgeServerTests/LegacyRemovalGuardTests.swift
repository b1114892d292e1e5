import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// The legacy-off guard's decisions, pure: which dialects it looks at, what a configuration
/// would strand (activities held on the legacy side, alone or with OpenPush), and what the
/// refusal says. The live behaviour is `LegacyOffGuardLiveTests`.
struct LegacyRemovalGuardTests {
    static func configuration(legacy: [DialectName]) throws -> ProxyConfiguration {
        try TestConfiguration(upstream: "http://127.0.0.1:9", apps: TestApp.onePerDialect).with {
            for dialect in legacy { $0.legacy[dialect] = "http://127.0.0.1:9" }
        }.load()
    }

    @Test func theGuardLooksAtTheDialectsOfTheAppsWithoutALegacyProviderAndOnReloadOnlyAtTheRemovedOnes() throws {
        let only = try Self.configuration(legacy: [.onesignal])
        #expect(LegacyRemovalGuard.unguarded(only) == [.pushwoosh, .buzzkit])
        let before = try Self.configuration(legacy: [.onesignal, .pushwoosh]).legacy
        let removed = LegacyRemovalGuard.removed(from: before, to: only.legacy)
        #expect(removed == [.pushwoosh])
        #expect(LegacyRemovalGuard.unguarded(only, removed: removed) == [.pushwoosh])
        #expect(LegacyRemovalGuard.unguarded(try Self.configuration(legacy: DialectName.allCases)).isEmpty)
    }

    @Test func whatIsStrandedCountsTheLegacySideOfTheGuardedDialectsAppsAndTheLatestUntil() throws {
        let none = try Self.configuration(legacy: [])
        let counts = [
            ActivityCount(app: "os", holder: .legacy, count: 2, lastReachableUntil: 100),
            ActivityCount(app: "os", holder: .both, count: 1, lastReachableUntil: 300),
            ActivityCount(app: "os", holder: .openpush, count: 5, lastReachableUntil: 999),
            ActivityCount(app: "pw", holder: .legacy, count: 0, lastReachableUntil: 400),
            ActivityCount(app: "bk", holder: .legacy, count: 1, lastReachableUntil: 50),
        ]
        let stranded = LegacyRemovalGuard.stranded(none, dialects: [.onesignal, .pushwoosh], counts: counts)
        #expect(stranded == [.init(app: "os", dialect: .onesignal, count: 3, until: 300)])
        let refusals = LegacyRemovalGuard.refusals(stranded)
        #expect(refusals.count == 1)
        let refusal = refusals.first ?? ""
        #expect(refusal.hasPrefix("legacy.onesignal is not in the configuration") && refusal.contains("app os: 3 in flight until 1970-01-01T00:00:00.300Z")
                && refusal.contains("\"allow_legacy_removal\": true") && refusal.contains("--allow-legacy-removal"), "\(refusal)")
        #expect(LegacyRemovalGuard.stranded(none, dialects: [.pushwoosh], counts: counts).isEmpty)
        #expect(LegacyRemovalGuard.clear([.pushwoosh]) == ["legacy.pushwoosh is not in the configuration and no activity is in flight on the legacy side: legacy can be switched off"])
    }
}
