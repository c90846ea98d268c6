internal import GRDB

extension Database {
    /// Runs `sql` through a statement prepared once per connection and kept in GRDB's cache.
    ///
    /// `execute(sql:arguments:)` parses and prepares the text on every call; the journal runs the
    /// same few statements thousands of times (about nine writes per package).
    func executeCached(sql: String, arguments: StatementArguments) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}
