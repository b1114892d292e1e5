import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// The one routing decision, as a table: for each mode and what the ledger says, which side
/// answers, which also gets the request, what is shadowed and where an unknown id falls back.
@Suite struct PlacementTests {
    static let legacyShadow = ShadowSettings(primary: .legacy, openPushBaseURL: "sandbox")
    static let openPushShadow = ShadowSettings(primary: .openpush)

    static func place(_ mode: MigrationMode, _ ledger: Placement.Ledger, shadow: ShadowSettings? = nil, legacy: Bool = true, sendable: Bool = true) -> Placement {
        .decide(.init(mode: mode, shadow: shadow, ledger: ledger, legacyConfigured: legacy, sendable: sendable, sampled: true))
    }

    @Test func startsGoWhereTheModeSays() {
        #expect(Self.place(.observe, .notAsked).primary == .legacy)
        #expect(Self.place(.openpush, .notAsked).primary == .openpush)
        let legacyPrimary = Self.place(.shadow, .notAsked, shadow: Self.legacyShadow)
        #expect(legacyPrimary.primary == .legacy && legacyPrimary.shadowed && legacyPrimary.fallback == nil)
        let openPushPrimary = Self.place(.shadow, .notAsked, shadow: Self.openPushShadow)
        #expect(openPushPrimary.primary == .openpush && openPushPrimary.shadowed)
        #expect(!Self.place(.shadow, .notAsked, shadow: Self.openPushShadow, legacy: false).shadowed, "a legacy shadow without legacy.<dialect>")
    }

    @Test func aKnownActivityGoesToItsHolderWhateverTheMode() {
        for mode in MigrationMode.allCases {
            let shadow = mode == .shadow ? Self.legacyShadow : nil
            #expect(Self.place(mode, .held(.legacy), shadow: shadow).primary == .legacy, "\(mode)")
            #expect(Self.place(mode, .held(.openpush), shadow: shadow).primary == .openpush, "\(mode)")
            let both = Self.place(mode, .held(.both), shadow: shadow)
            #expect(both.primary == .openpush && both.alongside == .legacy && !both.shadowed && both.fallback == nil, "\(mode)")
            #expect(Self.place(mode, .held(.legacy), shadow: shadow).fallback == nil)
        }
        // In shadow the holder is the primary; the other side is the shadow.
        let held = Self.place(.shadow, .held(.openpush), shadow: Self.legacyShadow)
        #expect(held.primary == .openpush && held.shadowed)
    }

    @Test func anUnknownActivityTriesTheModesFirstSideThenTheOther() {
        let openPush = Self.place(.openpush, .unknown)
        #expect(openPush.primary == .openpush && openPush.fallback == .legacy && openPush.basis == .unknownActivity)
        #expect(Self.place(.openpush, .unknown, legacy: false).fallback == nil, "no legacy.<dialect>: nowhere to fall back to")
        let observe = Self.place(.observe, .unknown)
        #expect(observe.primary == .legacy && observe.fallback == .openpush)
        #expect(Self.place(.observe, .unknown, sendable: false).fallback == nil, "a refused translation never reaches OpenPush")
    }
}
