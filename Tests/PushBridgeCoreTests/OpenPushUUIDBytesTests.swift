import Testing
@testable import PushBridgeCore

/// `OpenPushRules.isUUID` checks the dashes first and each run of hex digits with two
/// subtractions (issue 31, branch `translate8`): the same answer as the byte-at-a-time reading
/// (``OpenPushUUIDRuleTests/oracle(_:)``) for every byte value and every one- and two-byte
/// character at every place of a 36-byte key.
struct OpenPushUUIDBytesTests {
    @Test func aHexByteIsWhatTheThreeRangesSaid() {
        for c in UInt8.min...UInt8.max {
            let before = (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
            #expect(OpenPushRules.isHexByte(c) == before, "\(c)")
        }
    }

    @Test(arguments: ["5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1f2", "5F7A2C1E-9B40-4A2D-8C31-6E0B7D94A1F2"])
    func everyCharacterAtEveryPlaceGivesTheOraclesAnswer(_ base: String) {
        let bytes = Array(base.utf8)
        var mismatches = 0, valid = 0
        func check(_ u: [UInt8]) {
            let s = String(decoding: u, as: UTF8.self)
            let answer = OpenPushRules.isUUID(s)
            if answer != OpenPushUUIDRuleTests.oracle(s) { mismatches += 1 }
            if answer { valid += 1 }
        }
        for place in 0..<36 {
            // Every ASCII byte in one place.
            for c in UInt8(0)...0x7F {
                var u = bytes
                u[place] = c
                check(u)
            }
            // Every two-byte character over two places (the key stays 36 bytes).
            guard place < 35 else { continue }
            for scalar in UInt32(0x80)...0x7FF {
                var u = bytes
                u[place] = UInt8(0xC0 | (scalar >> 6))
                u[place + 1] = UInt8(0x80 | (scalar & 0x3F))
                check(u)
            }
        }
        #expect(mismatches == 0)
        // Each hex place takes 22 hex digits, each dash place only the dash.
        #expect(valid == 32 * 22 + 4)
    }
}
