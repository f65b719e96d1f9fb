/// Bad input from a user or a file: a malformed coordinate, an unknown id, a broken line.
///
/// The message is a complete sentence meant for stderr: what was wrong and, where it helps, what to do.
public struct InputError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
