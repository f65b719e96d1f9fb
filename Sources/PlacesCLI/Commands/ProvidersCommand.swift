import ArgumentParser
import Foundation
import PlacesApp
import PlacesConfig
import PlacesCore
import ProviderHTTP

struct ProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "List the network providers: usable or why not, what each can do, and what it costs.",
        discussion: """
            A provider is usable when it is enabled and has what it needs: an API key for Google, Yelp \
            and Foursquare (from the environment variable named by api_key_env, or api_key), and a \
            contact address for Nominatim. The free local index is always available and not listed.
            Prices are dollars per 1,000 calls, by SKU; override them under [providers.<name>.prices].

            Examples:
              places providers
              YELP_API_KEY=… places providers --json
              places providers --config ./config.toml
            """)

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let environment = state.environment
            let configuration = try PlacesConfiguration.load(environment)
            let providers = ProviderFactory.statuses(configuration: configuration, environment: environment)
            if json {
                printData(try Self.json(providers))
            } else {
                print(Self.table(providers), terminator: "")
            }
        }
    }

    /// One block per provider: its name, state and capabilities, then labelled lines (why, prices, cache terms,
    /// URL) wrapped to `width` under their label, so a long reason or price list never runs off a narrow terminal.
    static func table(_ providers: [ConfiguredProvider], width: Int = TerminalWidth.current) -> String {
        var out = ""
        for entry in providers {
            let state = entry.isUsable ? "usable" : (entry.settings.enabled ? "unusable" : "disabled")
            let stateCell = TerminalColor.providerState(state.padding(toLength: 10, withPad: " ", startingAt: 0),
                                                        usable: entry.isUsable, enabled: entry.settings.enabled)
            let heading = TerminalText.wrap(entry.capabilities.names.joined(separator: ", "), width: width, indent: 21)
            out += TerminalColor.header(entry.name.padding(toLength: 11, withPad: " ", startingAt: 0)) + stateCell
                + heading.dropFirst(21) + "\n"
            var lines: [(label: String, text: String)] = []
            if let reason = entry.reason { lines.append(("why:", reason)) }
            lines.append(("prices:", priceLine(entry.prices)))
            lines.append(("cache:", "ids \(duration(entry.cacheTerms.ids)), coordinates \(duration(entry.cacheTerms.coordinates)), "
                + "content \(duration(entry.cacheTerms.content))"))
            lines.append(("url:", entry.settings.baseURL.absoluteString))
            for line in lines {
                let wrapped = TerminalText.wrap(TerminalText.safe(line.text), width: width, indent: 10)
                out += "  " + line.label.padding(toLength: 8, withPad: " ", startingAt: 0) + wrapped.dropFirst(10) + "\n"
            }
        }
        return out
    }

    static func priceLine(_ table: PriceTable) -> String {
        guard !table.perCall.isEmpty else { return "free" }
        return table.perCall.keys.sorted().map { sku in
            "\(sku) $\(dollarsPerThousand(table.perCall[sku]!))/1k"
        }.joined(separator: ", ")
    }

    static func dollarsPerThousand(_ perCall: MicroDollars) -> String {
        let dollars = Double(perCall.value) / 1_000
        return dollars == dollars.rounded() ? String(Int(dollars)) : String(format: "%.2f", dollars)
    }

    static func duration(_ seconds: TimeInterval?) -> String {
        guard let seconds else { return "unlimited" }
        if seconds == 0 { return "not allowed" }
        if seconds.truncatingRemainder(dividingBy: 86_400) == 0 { return "\(Int(seconds / 86_400)) d" }
        if seconds.truncatingRemainder(dividingBy: 3_600) == 0 { return "\(Int(seconds / 3_600)) h" }
        return "\(Int(seconds)) s"
    }

    static func json(_ providers: [ConfiguredProvider]) throws -> Data {
        let objects: [[String: Any]] = providers.map { entry in
            var object: [String: Any] = [
                "name": entry.name, "usable": entry.isUsable, "enabled": entry.settings.enabled,
                "capabilities": entry.capabilities.names, "base_url": entry.settings.baseURL.absoluteString,
                "prices_per_1000": Dictionary(uniqueKeysWithValues: entry.prices.perCall.map {
                    ("\(entry.prices.provider).\($0.key)", Double($0.value.value) / 1_000)
                }),
                "cache_terms_s": [
                    "ids": entry.cacheTerms.ids as Any? ?? NSNull(), "coordinates": entry.cacheTerms.coordinates as Any? ?? NSNull(),
                    "content": entry.cacheTerms.content as Any? ?? NSNull(),
                ],
            ]
            if let reason = entry.reason { object["reason"] = reason }
            return object
        }
        return try JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .prettyPrinted])
    }
}
