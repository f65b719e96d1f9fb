import Foundation

/// A parsed TOML value, as a plain Sendable tree, so any part of the app can read its own section
/// without holding TOMLKit's reference types.
public indirect enum ConfigValue: Sendable, Hashable {
    case string(String)
    case integer(Int)
    case double(Double)
    case bool(Bool)
    /// TOML dates and times, kept in their TOML text form.
    case dateTime(String)
    case array([ConfigValue])
    case table([String: ConfigValue])

    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var integer: Int? { if case .integer(let value) = self { value } else { nil } }
    /// Integers read as numbers too: `timeout_s = 5` and `timeout_s = 5.0` mean the same.
    public var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
    public var table: [String: ConfigValue]? { if case .table(let value) = self { value } else { nil } }
    public var array: [ConfigValue]? { if case .array(let value) = self { value } else { nil } }

    /// The value at a dotted path (`providers.google.timeout_s`).
    public subscript(path path: String) -> ConfigValue? {
        var current: ConfigValue? = self
        for key in path.split(separator: ".") { current = current?.table?[String(key)] }
        return current
    }

    /// A JSON-compatible object, so a section can be decoded with `JSONDecoder` into any `Decodable`.
    var jsonObject: Any {
        switch self {
        case .string(let value), .dateTime(let value): value
        case .integer(let value): value
        case .double(let value): value
        case .bool(let value): value
        case .array(let values): values.map(\.jsonObject)
        case .table(let table): table.mapValues(\.jsonObject)
        }
    }

    /// TOML text for this value (inline form for tables inside arrays).
    func tomlText(redactingKeys: Bool = true) -> String {
        switch self {
        case .string(let value): ConfigValue.quote(value)
        case .dateTime(let value): value
        case .integer(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): String(value)
        case .array(let values): "[" + values.map { $0.tomlText(redactingKeys: redactingKeys) }.joined(separator: ", ") + "]"
        case .table(let table):
            "{ " + table.keys.sorted().map { key in
                let value = redactingKeys && ConfigValue.isSecretKey(key) ? .string(ConfigValue.redacted) : table[key]!
                return "\(key) = \(value.tomlText(redactingKeys: redactingKeys))"
            }.joined(separator: ", ") + " }"
        }
    }

    static let redacted = "[REDACTED]"

    /// Keys whose values are credentials wherever they appear (`api_key`, `password`, `token`, `secret`).
    static func isSecretKey(_ key: String) -> Bool {
        let lower = key.lowercased()
        if lower.hasSuffix("_env") { return false }
        return ["key", "secret", "password", "token"].contains { lower == $0 || lower.hasSuffix("_" + $0) || lower.hasPrefix($0 + "_") }
            || lower == "api_key"
    }

    static func quote(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "\"\(escaped)\""
    }
}
