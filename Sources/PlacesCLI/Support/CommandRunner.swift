import ArgumentParser
import Foundation
import PlacesApp
import PlacesCore
import PlacesPipeline
import SpotStore

/// Runs a command body and turns every failure into one line on stderr and a non-zero exit, so
/// scripts see a clean error instead of a stack of usage text. A storage failure (read-only or full disk,
/// a locked database) says where and what to do; `verbose` adds the library's own wording on a second line.
func reportingErrors(verbose: Bool = false, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch let error as InputError {
        printError("places: \(error.message)")
        throw ExitCode(2)
    } catch let error as ProviderError {
        printError("places: \(error.description)")
        throw ExitCode(3)
    } catch let error as BudgetDenied {
        printError("places: \(error.provider) not asked: \(error.denial); raise the limit with `places budget set \(error.denial.limitedProvider ?? "overall") …`")
        throw ExitCode(3)
    } catch let miss as NotFound {
        printError("places: \(miss.message)")
        throw ExitCode(2)
    } catch let miss as UnknownSpot {
        printError("places: \(miss.message)")
        throw ExitCode(2)
    } catch let miss as UnknownVisit {
        printError("places: unknown visit '\(miss.reference.prefix(40))': give its id (or the first 4+ characters of it) as printed by `places spots visits`")
        throw ExitCode(2)
    } catch let error as CleanExit {
        throw error
    } catch {
        if let storage = StorageError.classify(error, directory: PlacesEnvironment.resolve().dataDirectory) {
            printError("places: \(storage)")
            if verbose { printError("places: detail: \(storage.detail)") }
        } else {
            printError("places: \(error)")
        }
        throw ExitCode(1)
    }
}

extension StateOptions {
    /// Opens the application, telling the user on stderr when a first run builds the index.
    func openApp() throws -> PlacesApplication {
        try PlacesApplication.open(environment) { printError($0) }
    }
}

extension UnknownSpot {
    /// What the CLI says when no saved spot has the id typed.
    var message: String {
        switch reason {
        case .notAnID:
            "unknown spot '\(reference)': give its id (or the first 4+ characters of it) as printed by `places spots list`"
        case .noSuchSpot:
            "unknown spot '\(reference)': no saved spot has that id; see `places spots list`"
        }
    }
}

extension NotFound {
    /// What the CLI says about a miss, and how to fill the gap.
    var message: String {
        switch subject {
        case .placeID(let id) where id.provider == "osm" || id.provider == "geonames":
            "unknown place id '\(id)': it is not in the local index (import the extract that holds it with `places import FILE`)"
        case .placeID(let id):
            "unknown place id '\(id)': \(id.provider) does not know it"
        case .noProviderFor(let id):
            "no provider for id '\(id)': the local index answers osm: and geonames: ids, and a network provider "
                + "its own ids only when it is usable (see `places providers`)"
        case .near(let point):
            "nothing is known near \(point): import an extract or GeoNames dump that covers it"
        }
    }
}

extension OutputOptions {
    /// Prints places as a table, JSON or GeoJSON; `reference` adds distance and bearing.
    func print(_ places: [Place], reference: Coordinate? = nil) throws {
        if json {
            printData(try PlacesJSON.places(places, reference: reference, pretty: isTerminal(.standardOutput)))
        } else if geojson {
            printData(try PlacesJSON.geoJSON(places, reference: reference, pretty: isTerminal(.standardOutput)))
        } else if places.isEmpty {
            printError("no places found")
        } else {
            Swift.print(PlaceTable.render(places, reference: reference), terminator: "")
        }
    }
}

enum StandardStream { case standardOutput, standardError }

func isTerminal(_ stream: StandardStream) -> Bool {
    isatty(stream == .standardOutput ? STDOUT_FILENO : STDERR_FILENO) == 1
}
