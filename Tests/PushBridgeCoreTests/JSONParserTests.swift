import Testing
@testable import PushBridgeCore

struct JSONParserTests {
    @Test func integersStayIntegersAndOrderIsKept() throws {
        let text = #"{"b":1,"a":[true,false,null,1.50,-0,2e3],"u":"\u00e9👨🍳\n","n":{"x":{"y":9007199254740993}}}"#
        let value = try JSONParser.parse(text)
        #expect(JSONWriter.string(value) == #"{"b":1,"a":[true,false,null,1.50,-0,2e3],"u":"é👨🍳\n","n":{"x":{"y":9007199254740993}}}"#)
        #expect(value.objectValue?.keys == ["b", "a", "u", "n"])
    }

    @Test(arguments: [
        (#"{"a":1,"a":2}"#, "duplicate key \"a\""),
        (#"{"a":01}"#, "leading zero in number"),
        (#"{"a":"x"#, "unterminated string"),
        (#"{"a":1} x"#, "unexpected bytes after the JSON value"),
        (#"{"a":"\ud800"}"#, "unpaired surrogate in \\u escape"),
        ("[" + String(repeating: "[", count: 70) + String(repeating: "]", count: 71), "nesting deeper than 64 levels"),
    ])
    func rejectsWhatAProxyMustNotGuess(input: String, reason: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(input) }
        do { _ = try JSONParser.parse(input) } catch { #expect(error.reason == reason) }
    }

    @Test func rejectsInvalidUTF8() {
        let bytes: [UInt8] = Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        do {
            _ = try JSONParser.parse(bytes)
            Issue.record("invalid UTF-8 was accepted")
        } catch {
            #expect(error.reason == "invalid UTF-8 in string")
        }
    }

    @Test func escapesControlCharactersOnWrite() throws {
        let v = JSONValue.string("a\"b\\c\u{01}")
        #expect(JSONWriter.string(v) == #""a\"b\\c\u0001""#)
        #expect(try JSONParser.parse(JSONWriter.bytes(v)) == v)
    }
}
