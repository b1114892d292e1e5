import Foundation
import Testing
@testable import PushBridgeServer

/// `schemeValue` trims without Foundation; it must read every header the Foundation version read.
struct PresentedCredentialTests {
    static let headers = [
        "Key abc", "  Key   abc  ", "Basic\u{00A0}x", "Bearer \tsecret\t", "Token", "", "   ", "Key ", "plainkey",
        "\u{2003}Key\u{2003}emspace\u{2003}", "Key a b c", "Key\tabc", "Key é\u{301}", "Key 🚀 ",
    ]

    @Test(arguments: headers)
    func schemeValueMatchesFoundationTrimming(header: String) {
        #expect(PresentedCredential.schemeValue(header) == Self.foundationSchemeValue(header))
    }

    /// The implementation before the change, kept as the reference.
    static func foundationSchemeValue(_ value: String) -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " ") else { return trimmed.isEmpty ? nil : trimmed }
        let rest = trimmed[trimmed.index(after: space)...].trimmingCharacters(in: .whitespaces)
        return rest.isEmpty ? nil : rest
    }
}
