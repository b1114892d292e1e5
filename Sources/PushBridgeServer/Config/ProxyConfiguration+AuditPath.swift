extension ProxyConfiguration {
    /// The `audit_db` of a configuration file (the default when it has none), read without the
    /// environment; throws when the file cannot be read or parsed.
    public static func auditPath(inFileAt path: String) throws(ConfigurationError) -> String {
        try parseFile(at: path).objectValue?["audit_db"]?.stringValue ?? defaultAuditDatabasePath
    }
}
