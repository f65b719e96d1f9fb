import Foundation
import PlacesCore
import TOMLKit

/// The effective configuration: `config.toml` parsed once, with each section read by the code that owns it.
///
/// Provider settings (`[providers.<name>]`) are read here. Other sections (`[pipeline]`, `[cache]`,
/// `[budget]`, …) belong to other modules, which read them without changes to this type:
///
/// ```swift
/// struct BudgetSettings: ConfigSection {
///     static let sectionName = "budget"
///     var dailyLimitDollars: Double?          // daily_limit_dollars
/// }
/// let budget = try configuration.section(BudgetSettings.self) ?? BudgetSettings()
/// ```
///
/// A missing file means all defaults. Malformed TOML fails with the file and line.
public struct PlacesConfiguration: Sendable {
    /// Where it was read from (`nil` when built in code).
    public var file: URL?
    /// Whether that file existed; `false` means every value is a default.
    public var fileExists: Bool
    /// The whole parsed document.
    public var root: [String: ConfigValue]
    /// Every provider the document configures, plus the four built-in network providers.
    public var providers: [String: ProviderSettings]

    /// The network providers that need no section to be listed.
    public static let networkProviders = ["google", "yelp", "foursquare", "nominatim"]

    /// Every top-level section some module reads. A section not listed is a mistake (`[pipline]`), reported
    /// with the nearest name instead of being ignored; a module that reads a new section adds it here.
    public static let sections = ["providers", "pipeline", "cache", "budget", "storage", "data"]

    public init(file: URL? = nil, fileExists: Bool = false, root: [String: ConfigValue] = [:]) throws(InputError) {
        self.file = file
        self.fileExists = fileExists
        self.root = root
        let label = file?.lastPathComponent ?? "config.toml"
        for name in root.keys.sorted() where !Self.sections.contains(name) {
            throw ConfigNames.unknown("section", name, known: Self.sections, in: label)
        }
        for name in Self.sections where root[name] != nil && root[name]?.table == nil {
            throw InputError("\(label): '\(name)' must be a [\(name)] section, not a single value")
        }
        var providers: [String: ProviderSettings] = [:]
        let sections = root["providers"]?.table ?? [:]
        for name in Set(Self.networkProviders).union(sections.keys) {
            providers[name] = try ProviderSettings(name: name, section: sections[name], file: label)
        }
        self.providers = providers
        // `[storage]` is read where the stores are opened (with the environment); its keys are checked here, so a
        // typo is reported by every command.
        _ = try StorageSettings(root: root, environment: [:])
        _ = try DataSettings(root: root, environment: [:])
    }

    /// Reads `url`; a missing file gives the defaults.
    public static func load(from url: URL) throws(InputError) -> PlacesConfiguration {
        guard FileManager.default.fileExists(atPath: url.path) else {
            return try PlacesConfiguration(file: url, fileExists: false)
        }
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw InputError("cannot read \(url.path): \(error.localizedDescription)")
        }
        return try parse(text, file: url)
    }

    /// Parses TOML text; errors name `file` and the line.
    public static func parse(_ text: String, file: URL? = nil) throws(InputError) -> PlacesConfiguration {
        let label = file?.path ?? "config.toml"
        if let problem = TOMLPreflight.firstProblem(in: text) {
            throw InputError("\(label):\(problem.line): invalid TOML: \(problem.message)")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw InputError("\(label):\(error.source.begin.line): invalid TOML: \(error.description)")
        } catch {
            throw InputError("\(label): invalid TOML: \(error)")
        }
        return try PlacesConfiguration(file: file, fileExists: file != nil, root: Self.convert(table))
    }

    /// The settings for `provider`: its section merged over the defaults.
    public func settings(for provider: String) -> ProviderSettings {
        // Built-in providers are always present; an unknown name gets the generic defaults.
        providers[provider] ?? (try? ProviderSettings(name: provider, section: nil, file: "config.toml"))!
    }

    /// The raw value at a dotted path, e.g. `pipeline.grid_m`.
    public func value(at path: String) -> ConfigValue? { ConfigValue.table(root)[path: path] }

    /// Decodes the section `S.sectionName` (snake_case keys to camelCase properties); `nil` when absent.
    public func section<S: ConfigSection>(_ type: S.Type) throws(InputError) -> S? {
        guard let value = value(at: S.sectionName) else { return nil }
        let label = file?.lastPathComponent ?? "config.toml"
        do {
            let data = try JSONSerialization.data(withJSONObject: value.jsonObject, options: [.fragmentsAllowed])
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(S.self, from: data)
        } catch let error as DecodingError {
            throw InputError("\(label): [\(S.sectionName)] \(Self.describe(error))")
        } catch {
            throw InputError("\(label): [\(S.sectionName)] could not be read: \(error)")
        }
    }

    // MARK: Conversion

    static func convert(_ table: TOMLTable) -> [String: ConfigValue] {
        var result: [String: ConfigValue] = [:]
        for key in table.keys {
            if let value = table[key] { result[key] = convert(value) }
        }
        return result
    }

    static func convert(_ value: any TOMLValueConvertible) -> ConfigValue {
        switch value.type {
        case .table: return .table(value.table.map(convert) ?? [:])
        case .array: return .array(value.array.map { $0.map(convert) } ?? [])
        case .string: return .string(value.string ?? "")
        case .int: return .integer(value.int ?? 0)
        case .double: return .double(value.double ?? 0)
        case .bool: return .bool(value.bool ?? false)
        case .date, .time, .dateTime: return .dateTime(value.tomlValue.debugDescription)
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(path(context)) must be \(type)"
        case .keyNotFound(let key, _): return "\(key.stringValue) is required"
        case .valueNotFound(let type, let context): return "\(path(context)) must be \(type)"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

/// A section of `config.toml` that some module reads for itself (`[pipeline]`, `[cache]`, `[budget]`).
/// `sectionName` may be dotted (`cache.limits`).
public protocol ConfigSection: Decodable {
    static var sectionName: String { get }
}
