/// What ``AuditCopy`` did with one table's rows.
public struct AuditCopyCounts: Sendable, Equatable {
    /// The table.
    public var table: String
    /// Rows the file holds.
    public var read = 0
    /// Rows PostgreSQL did not have: inserted.
    public var inserted = 0
    /// Rows an earlier copy brought whose values have changed in the file since (a request
    /// that was `pending` then): updated to the file's values.
    public var updated = 0
    /// Rows whose file records an `instance_name`, by name: stored under that name.
    public var instanceNames: [String: Int] = [:]
    /// Rows whose file records no `instance_name`: stored under the copy's label.
    public var labelled = 0

    /// Rows already present with the same values, or present as another instance's row:
    /// left alone.
    public var unchanged: Int { read - inserted - updated }

    /// `requests 12 read, 10 copied, 1 updated, 1 already present`.
    public var description: String {
        "\(table) \(read) read, \(inserted) copied, \(updated) updated, \(unchanged) already present"
    }
}

/// Where a running ``AuditCopy`` is, after each committed batch.
public struct AuditCopyProgress: Sendable, Equatable {
    /// The table being copied.
    public var table: String
    /// Rows of every table done so far.
    public var done: Int
    /// Rows of every table in the file.
    public var total: Int
}

/// Why ``AuditCopy`` stopped before copying (or in the middle; every committed batch stays).
public struct AuditCopyError: Error, Sendable, CustomStringConvertible {
    /// For people.
    public var description: String

    /// An error.
    public init(_ description: String) {
        self.description = description
    }
}
