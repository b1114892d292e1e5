import Foundation
import PushBridgeCore

/// `pushbridge translate --path PATH [--config FILE] [--format text|json] [FILE]`: translates
/// one inbound body exactly as the proxy would, and prints the OpenPush request(s) and the
/// findings.
enum TranslateCommand {
    /// The declaration.
    static let command = Command(
        name: "translate", summary: "translate one request body offline and print the OpenPush request(s) and the findings",
        options: [
            Option(name: "path", kind: .text(placeholder: "PATH"), help: "the inbound path, e.g. /json/1.3/startLiveActivity", required: true),
            .config("map the request's app as the proxy would (without it app ids pass through)"),
            .format([.text, .json]),
            Option(name: "json", kind: .flag, help: "same as --format json"),
        ],
        positionals: [.init(name: "FILE", help: "the request body (standard input without it)", optional: true)],
        notes: "Exit status: 0 forwardable, 1 rejected, 2 usage.",
        run: { run($0) })

    static func run(_ arguments: ParsedArguments) -> Int32 {
        let path = arguments["path"] ?? ""
        let body: [UInt8]
        if let file = arguments.positional.first {
            guard let data = FileManager.default.contents(atPath: file) else {
                return arguments.fail("cannot read \(file)", status: 2)
            }
            body = Array(data)
        } else {
            body = Array(FileHandle.standardInput.readDataToEndOfFile())
        }
        let now = Int64(Date().timeIntervalSince1970)
        let context: TranslationContext
        switch TranslateContextLoader.context(configPath: arguments["config"], path: path, body: body, now: now) {
        case .success(let c): context = c
        case .failure(let message):
            return arguments.fail("\(message)", status: 2)
        }
        guard let (_, translation) = Dialects.translate(path: path, body: body, context: context) else {
            return arguments.fail("no dialect serves \(path)", status: 2)
        }
        if arguments.flag("json") || arguments.format == .json {
            print(JSONWriter.pretty(translation.json))
        } else {
            print(TranslationTable.render(translation, color: stdoutIsTerminal))
        }
        return translation.isForwardable ? 0 : 1
    }
}
