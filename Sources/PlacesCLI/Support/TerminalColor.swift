import ArgumentParser
import Foundation
@preconcurrency import Rainbow

/// When the CLI colours its tables: `--color auto` (the default) only when stdout is a terminal and `NO_COLOR` is
/// unset or empty (https://no-color.org), `always` even into a pipe (for `less -R`), `never` not at all.
enum ColorChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    case auto, always, never

    /// Whether output gets colour. An explicit `--color` beats `NO_COLOR`, as no-color.org asks of command-line
    /// flags; `auto` gives way to it. Pure, so the rule is tested without a terminal.
    func wantsColor(environment: [String: String], stdoutIsTerminal: Bool) -> Bool {
        switch self {
        case .always: true
        case .never: false
        case .auto: stdoutIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
        }
    }
}

/// The one place the CLI turns Rainbow on or off. Rainbow keeps its switch in a process-wide static, so it is set
/// once, in `PlacesCommand.main()`, after the command line is parsed and before the command prints anything.
enum TerminalColor {
    static func apply(_ choice: ColorChoice) {
        let wanted = choice.wantsColor(environment: ProcessInfo.processInfo.environment, stdoutIsTerminal: isTerminal(.standardOutput))
        Rainbow.enabled = wanted
        Rainbow.outputTarget = wanted ? .console : .unknown
    }

    /// A table's header cell, already padded to its column: bold when colour is on, unchanged otherwise
    /// (padding is done first, so escape codes never count toward a column's width).
    static func header(_ text: String) -> String { text.isEmpty ? text : text.bold }

    /// A provider's state word: green when usable, yellow when it lacks something, dim when switched off.
    static func providerState(_ padded: String, usable: Bool, enabled: Bool) -> String {
        usable ? padded.green : (enabled ? padded.yellow : padded.dim)
    }
}
