import Foundation

extension Redaction {
    /// `text` with the password of every `scheme://user:password@host` URL in it replaced by ``placeholder``,
    /// whether or not the URL is otherwise valid: how a database URL appears in `config show`, logs and errors.
    ///
    /// ```swift
    /// Redaction.urlPasswords("postgres://places:s3cret@db:5432/places")  // postgres://places:[REDACTED]@db:5432/places
    /// ```
    public static func urlPasswords(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let scheme = rest.range(of: "://") {
            result += rest[..<scheme.upperBound]
            rest = rest[scheme.upperBound...]
            // The authority ends at the first '/', '?', '#', quote or white space; its userinfo at its last '@'.
            let authorityEnd = rest.firstIndex { "/?#\"' \n\t".contains($0) } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                result += authority[...colon] + placeholder + authority[at...]
                rest = rest[authorityEnd...]
            }
        }
        return result + rest
    }
}
