import PostgresNIO

/// SQL put together piece by piece (optional filters, a lock clause), every value still a bound parameter:
/// postgres-nio's `PostgresQuery` interpolation cannot splice one query into another.
///
/// ```swift
/// var select = SQLFragment("SELECT id FROM spot WHERE TRUE")
/// if let category { select = select.sql(" AND category = ").bind(category) }
/// let rows = try await connection.query(select.sql(" ORDER BY id").query, logger: logger)
/// ```
struct SQLFragment: Sendable {
    private(set) var text: String
    private(set) var bindings = PostgresBindings()

    init(_ text: String = "") { self.text = text }

    /// Appends SQL text.
    func sql(_ more: String) -> SQLFragment {
        var copy = self
        copy.text += more
        return copy
    }

    /// Appends a placeholder bound to `value`.
    func bind(_ value: some PostgresDynamicTypeEncodable) -> SQLFragment {
        var copy = self
        copy.bindings.append(value)
        copy.text += "$\(copy.bindings.count)"
        return copy
    }

    var query: PostgresQuery { PostgresQuery(unsafeSQL: text, binds: bindings) }
}
