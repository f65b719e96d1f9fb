import Foundation
import PlacesCore

/// Merges answers that describe the same place into one, field by field, keeping provenance.
///
/// For each field the first provider in that field's preference list that has a value wins; providers
/// not named in a list come after it, in the order they answered. The identity (`id`, and with it
/// the name and position unless preferred otherwise) comes from the `id` preference; every other
/// provider's id is kept in ``Place/alternateIDs`` so saved references survive a change of winner.
public struct PlaceMerger: Sendable {
    public var preference: [PlaceField: [String]]
    public var defaultPreference: [String]

    public init(preference: [PlaceField: [String]] = [:],
                defaultPreference: [String] = ["google", "yelp", "foursquare", "nominatim", "local"]) {
        self.preference = preference
        self.defaultPreference = defaultPreference
    }

    /// - Parameter answers: one place per provider, in the order the providers answered.
    public func merge(_ answers: [Place], fetchedAt: Date) -> Place? {
        guard var merged = ranked(answers, for: .id).first else { return nil }
        merged.provenance = [:]
        merged.alternateIDs = []
        for field in PlaceField.allCases {
            guard let source = ranked(answers, for: field).first(where: { $0.has(field) }) else {
                clear(field, in: &merged)
                continue
            }
            copy(field, from: source, into: &merged)
            merged.provenance[field] = source.provenance[field]
                ?? FieldSource(provider: provider(of: source), fetchedAt: fetchedAt)
        }
        var alternates: [PlaceID] = []
        for answer in answers {
            for id in [answer.id] + answer.alternateIDs where id != merged.id && !alternates.contains(id) {
                alternates.append(id)
            }
        }
        merged.alternateIDs = alternates
        let attributions = answers.compactMap(\.attribution).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        merged.attribution = attributions.isEmpty ? nil : attributions.joined(separator: "; ")
        return merged
    }

    private func provider(of place: Place) -> String {
        place.provenance[.id]?.provider ?? place.id.provider
    }

    private func ranked(_ answers: [Place], for field: PlaceField) -> [Place] {
        let order = (preference[field] ?? []) + defaultPreference
        func rank(_ place: Place) -> Int { order.firstIndex(of: provider(of: place)) ?? order.count }
        return answers.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
    }

    private func copy(_ field: PlaceField, from source: Place, into place: inout Place) {
        switch field {
        case .id: place.id = source.id
        case .name: place.name = source.name
        case .coordinate: place.coordinate = source.coordinate
        case .address:
            place.address = source.address
            place.formattedAddress = source.formattedAddress
        case .phone: place.phone = source.phone
        case .website: place.website = source.website
        case .categories:
            place.categories = source.categories
            place.category = source.category
        case .brand: place.brand = source.brand
        case .hours:
            place.openingHoursText = source.openingHoursText
            place.openingPeriods = source.openingPeriods
        case .timeZone:
            place.timeZone = source.timeZone
            place.utcOffsetMinutes = source.utcOffsetMinutes
        case .rating:
            place.rating = source.rating
            place.ratingCount = source.ratingCount
        case .status: place.status = source.status
        }
    }

    private func clear(_ field: PlaceField, in place: inout Place) {
        switch field {
        case .id, .name, .coordinate: break
        case .address:
            place.address = nil
            place.formattedAddress = nil
        case .phone: place.phone = nil
        case .website: place.website = nil
        case .categories:
            place.categories = []
            place.category = nil
        case .brand: place.brand = nil
        case .hours:
            place.openingHoursText = nil
            place.openingPeriods = nil
        case .timeZone:
            place.timeZone = nil
            place.utcOffsetMinutes = nil
        case .rating:
            place.rating = nil
            place.ratingCount = nil
        case .status: place.status = nil
        }
    }
}
