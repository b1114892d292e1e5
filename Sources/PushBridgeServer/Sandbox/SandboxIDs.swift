import Foundation

/// Ids the sandbox hands out.
enum SandboxIDs {
    private static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")

    /// A message id shaped like OpenPush's, e.g. `msg_01hq8n4t2v`.
    static func messageId() -> String {
        "msg_" + String((0..<10).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] })
    }

    /// A subscription id for a device registered without one.
    static func subscriptionId() -> String {
        "sub_" + String((0..<12).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] })
    }

    /// A distinct `apns-id` (a lower-case UUID).
    static func apnsId() -> String { UUID().uuidString.lowercased() }

    /// A random hex APNs-shaped token (for devices the sandbox simulates).
    static func hexToken(bytes: Int = 32) -> String {
        (0..<bytes).map { _ in String(format: "%02x", Int.random(in: 0...255)) }.joined()
    }
}
