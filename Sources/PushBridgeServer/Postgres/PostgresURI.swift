import CLibPQ

/// A PostgreSQL connection URI as PushBridge accepts it in `audit_db` and `--db`:
/// `postgresql://user@host:port/dbname?sslmode=…` in libpq's own syntax, every libpq
/// parameter (TLS ones included) passed through as written. A password is refused: it would
/// sit in a file or on a command line; libpq reads it from `PGPASSWORD`, `PGPASSFILE` or
/// `~/.pgpass`.
public struct PostgresURI: Sendable, Equatable {
    /// The URI as written.
    public var text: String

    /// Whether `text` names PostgreSQL rather than an SQLite file.
    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// Checks `text` with libpq's own parser; throws with what is wrong.
    public init(_ text: String) throws(PostgresError) {
        guard Self.isPostgres(text) else {
            throw PostgresError(operation: "parse URI", message: "a PostgreSQL URI starts with postgresql:// or postgres://")
        }
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &error) else {
            let message = error.map { String(cString: $0) } ?? "libpq could not parse it"
            if let error { PQfreemem(error) }
            throw PostgresError(operation: "parse URI", message: message)
        }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            let name = String(cString: keyword)
            if name == "password", let value = option.pointee.val, value.pointee != 0 {
                throw PostgresError(operation: "parse URI", message: "the URI carries a password; give it through PGPASSWORD, PGPASSFILE or ~/.pgpass instead")
            }
            if name == "sslpassword", let value = option.pointee.val, value.pointee != 0 {
                throw PostgresError(operation: "parse URI", message: "the URI carries sslpassword (the client key's passphrase); keep the key unencrypted with tight permissions instead")
            }
            option += 1
        }
        self.text = text
    }

    /// The URI for logs: user, host, port and database, never a parameter value.
    public var redacted: String {
        guard let query = text.firstIndex(of: "?") else { return text }
        return String(text[..<query]) + "?…"
    }
}
