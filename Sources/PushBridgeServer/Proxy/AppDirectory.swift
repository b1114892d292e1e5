import PushBridgeCore

/// Finds the configured app a request is for: OneSignal by the app id in the path, Pushwoosh
/// by `request.application` in the body, BuzzKit by the credential the caller presents.
public struct AppDirectory: Sendable {
    /// The configured apps.
    public let apps: [AppConfiguration]
    private let credentials: CallerCredentials

    /// A directory over the configured apps.
    public init(apps: [AppConfiguration]) {
        self.apps = apps
        self.credentials = CallerCredentials(apps: apps)
    }

    /// Why no app could be resolved.
    public enum Miss: Error, Sendable, Equatable {
        /// No app is configured under this source id for the dialect.
        case unknownApp(String)
        /// The request names no app (Pushwoosh without `application`; BuzzKit without credentials).
        case noAppNamed
        /// The caller's credential matches no BuzzKit app.
        case credentialMatchesNoApp
    }

    /// The app for a request. `sourceApp` is the app named by the request (path or body), nil
    /// for BuzzKit; `credential` the caller's secret, if any.
    public func app(dialect: DialectName, sourceApp: String?, credential: String?) -> Result<AppConfiguration, Miss> {
        if let sourceApp {
            guard let app = apps.first(where: { $0.dialect == dialect && $0.sourceAppId == sourceApp }) else {
                return .failure(.unknownApp(sourceApp))
            }
            return .success(app)
        }
        guard dialect == .buzzkit else { return .failure(.noAppNamed) }
        guard let credential else { return .failure(.noAppNamed) }
        if let app = credentials.apps(presenting: credential).first(where: { $0.dialect == .buzzkit }) { return .success(app) }
        // A pass-through BuzzKit app forwards whatever key the caller presents.
        if let app = apps.first(where: { $0.dialect == .buzzkit && $0.passThroughKey }) { return .success(app) }
        return .failure(.credentialMatchesNoApp)
    }

    /// Whether `credential` is a configured caller key of some app of `dialect` (pass-through
    /// apps, which accept any key, do not count): only such a caller may learn that an app id
    /// is not configured.
    public func authenticatesAnyApp(_ credential: String?, dialect: DialectName) -> Bool {
        guard let credential, !credential.isEmpty else { return false }
        return credentials.apps(presenting: credential).contains { $0.dialect == dialect }
    }

    /// Whether the caller may use the app: pass-through apps accept any presented key (OpenPush
    /// checks it); others need a configured credential, compared in constant time.
    public func authorizes(_ credential: String?, for app: AppConfiguration) -> Bool {
        guard let credential, !credential.isEmpty else { return false }
        return app.passThroughKey || credentials.verify(credential, forAppNamed: app.name)
    }
}

extension InboundRoute {
    /// The source app a request names: the OneSignal path's app id, the Pushwoosh body's
    /// `request.application`, nothing for BuzzKit (its app comes from the credential).
    public func namedSourceApp(body: JSONObject?) -> String? {
        switch dialect {
        case .onesignal: appId
        case .pushwoosh: body?["request"]?.objectValue?["application"]?.stringValue
        case .buzzkit: nil
        }
    }
}
