import PlacesCore

/// Nothing is known by that id, or near that point: a miss, not a failure. Each front end says it its own
/// way (the CLI names what to import, the server replies null), and no caller has to read a message to
/// tell a miss from an error.
public struct NotFound: Error, Sendable, Hashable {
    public enum Subject: Sendable, Hashable {
        /// The source that answers this id does not know it.
        case placeID(PlaceID)
        /// No usable source answers ids of this provider here (unknown, disabled or without its key).
        case noProviderFor(PlaceID)
        case near(Coordinate)
    }

    public var subject: Subject

    public init(_ subject: Subject) {
        self.subject = subject
    }
}
