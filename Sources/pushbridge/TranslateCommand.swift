import Foundation
import PushBridgeCore

/// `pushbridge translate --path PATH [--config FILE] [--json] [FILE]`: translates one inbound
/// body exactly as the proxy would, and prints the OpenPush request(s) and the findings.
/// Exit status: 0 forwardable, 1 rejected, 2 usage error.
enum TranslateCommand {
    static func run(_ arguments: [String]) -> Int32 {
        let options: CommandOptions
        do {
            options = try CommandOptions(arguments, valued: ["path", "config"], flags: ["json"])
        } catch {
            printError("pushbridge translate: \(error)\nusage: pushbridge translate --path PATH [--config FILE] [--json] [FILE]")
            return 2
        }
        guard let path = options.values["path"], options.positional.count <= 1 else {
            printError("usage: pushbridge translate --path PATH [--config FILE] [--json] [FILE]")
            return 2
        }
        let body: [UInt8]
        if let file = options.positional.first {
            guard let data = FileManager.default.contents(atPath: file) else {
                printError("pushbridge translate: cannot read \(file)")
                return 2
            }
            body = Array(data)
        } else {
            body = Array(FileHandle.standardInput.readDataToEndOfFile())
        }
        let now = Int64(Date().timeIntervalSince1970)
        let context: TranslationContext
        switch TranslateContextLoader.context(configPath: options.values["config"], path: path, body: body, now: now) {
        case .success(let c): context = c
        case .failure(let message):
            printError("pushbridge translate: \(message)")
            return 2
        }
        guard let (_, translation) = Dialects.translate(path: path, body: body, context: context) else {
            printError("pushbridge translate: no dialect serves \(path)")
            return 2
        }
        if options.flags.contains("json") {
            print(JSONWriter.pretty(translation.json))
        } else {
            print(TranslationTable.render(translation, color: stdoutIsTerminal))
        }
        return translation.isForwardable ? 0 : 1
    }
}
