import Foundation
import PushBridgeCore
import PushBridgeServer

/// Builds the translation context for `pushbridge translate`: without `--config`, app ids pass
/// through unchanged and nothing is mapped; with it, the request's app is looked up exactly as
/// the proxy would (BuzzKit: the only BuzzKit app, since the CLI has no caller credential).
enum TranslateContextLoader {
    static func context(configPath: String?, path: String, body: [UInt8], now: Int64) -> Result<TranslationContext, ParseError> {
        guard let configPath else { return .success(TranslationContext(now: now)) }
        let configuration: ProxyConfiguration
        do {
            configuration = try ProxyConfiguration.load(fileAt: configPath, environment: ProcessInfo.processInfo.environment)
        } catch {
            return .failure(ParseError("\(configPath):\n\(error)"))
        }
        guard let route = InboundRoute.match(path: path) else { return .failure(ParseError("no dialect serves \(path)")) }
        let object = (try? JSONParser.parse(body))?.objectValue
        let directory = AppDirectory(apps: configuration.apps)
        let app: AppConfiguration?
        if let named = route.namedSourceApp(body: object) {
            app = try? directory.app(dialect: route.dialect, sourceApp: named, credential: nil).get()
        } else if route.dialect == .buzzkit {
            let buzzkit = configuration.apps.filter { $0.dialect == .buzzkit }
            app = buzzkit.count == 1 ? buzzkit[0] : nil
        } else {
            app = nil
        }
        guard let app else {
            return .failure(ParseError("\(configPath) configures no \(route.dialect.rawValue) app for this request"))
        }
        return .success(app.translationContext(now: now, requestId: nil))
    }
}
