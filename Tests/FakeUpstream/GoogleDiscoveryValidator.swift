import Foundation

/// Checks requests against Google's own discovery document for Places API (New): method and path,
/// the key and field-mask headers, body members (recursively, by schema), required members, query
/// parameters, and that every field-mask path names a real `Place` field.
public struct GoogleDiscoveryValidator: Sendable {
    struct Method: Sendable {
        var name: String
        var httpMethod: String
        /// `nil` for `get`, matched by prefix instead.
        var path: String?
        var requestSchema: String?
        var responseSchema: String?
        var queryParameters: Set<String>
    }

    struct Property: Sendable {
        var ref: String?
        var required: Bool
    }

    let methods: [Method]
    let schemas: [String: [String: Property]]
    let globalParameters: Set<String>
    /// The members of Google's `Place`: every valid first segment of a field-mask path.
    public let placeFields: Set<String>

    /// `shared/specs/google-places-v1.discovery.json`, found from this source file's location
    /// (repo root is two folders up from `Tests/FakeUpstream/`, and `shared/` sits beside the repo).
    public static func defaultDocumentURL(filePath: String = #filePath) -> URL {
        let source = URL(fileURLWithPath: filePath).resolvingSymlinksInPath()
        let root = source.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.deletingLastPathComponent().appendingPathComponent("shared/specs/google-places-v1.discovery.json")
    }

    public init(documentURL: URL = GoogleDiscoveryValidator.defaultDocumentURL()) throws {
        let data = try Data(contentsOf: documentURL)
        guard let document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let resources = document["resources"] as? [String: Any],
              let places = resources["places"] as? [String: Any],
              let methodTable = places["methods"] as? [String: [String: Any]],
              let schemaTable = document["schemas"] as? [String: [String: Any]]
        else { throw CocoaError(.fileReadCorruptFile) }

        methods = methodTable.map { name, method in
            let path = method["flatPath"] as? String ?? ""
            let parameters = (method["parameters"] as? [String: [String: Any]] ?? [:])
                .filter { ($0.value["location"] as? String) == "query" }.keys
            return Method(
                name: name, httpMethod: method["httpMethod"] as? String ?? "",
                path: path.contains("{") ? nil : "/" + path,
                requestSchema: (method["request"] as? [String: Any])?["$ref"] as? String,
                responseSchema: (method["response"] as? [String: Any])?["$ref"] as? String,
                queryParameters: Set(parameters))
        }
        schemas = schemaTable.mapValues { schema in
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            return properties.mapValues { property in
                let ref = property["$ref"] as? String ?? (property["items"] as? [String: Any])?["$ref"] as? String
                let required = (property["description"] as? String)?.hasPrefix("Required.") ?? false
                return Property(ref: ref, required: required)
            }
        }
        globalParameters = Set((document["parameters"] as? [String: Any] ?? [:]).keys)
        placeFields = Set(schemas["GoogleMapsPlacesV1Place"]?.keys ?? [:].keys)
    }

    /// Everything wrong with `request`; empty when it conforms.
    public func violations(in request: RecordedRequest) -> [String] {
        let path = request.path
        guard let method = methods.first(where: { m in
            m.httpMethod == request.method && (m.path == path || (m.path == nil && path.hasPrefix("/v1/places/")
                && !path.dropFirst("/v1/places/".count).isEmpty && !path.dropFirst("/v1/places/".count).contains("/")))
        }) else {
            return ["no method \(request.method) \(path) in the discovery document"]
        }
        var problems: [String] = []
        if (request.header("X-Goog-Api-Key") ?? "").isEmpty { problems.append("\(method.name): missing X-Goog-Api-Key") }

        let mask = request.header("X-Goog-FieldMask")
        if method.name != "autocomplete" {
            if let mask, !mask.isEmpty {
                problems += maskViolations(mask, method: method)
            } else {
                problems.append("\(method.name): missing X-Goog-FieldMask (FieldMask is a required parameter)")
            }
        }

        if let schema = method.requestSchema {
            if let body = request.jsonBody {
                problems += bodyViolations(body, schema: schema, at: method.name)
            } else {
                problems.append("\(method.name): body is not a JSON object")
            }
        }
        let allowed = method.queryParameters.union(globalParameters)
        for name in request.query.keys where !allowed.contains(name) {
            problems.append("\(method.name): unknown query parameter '\(name)'")
        }
        return problems
    }

    private func maskViolations(_ mask: String, method: Method) -> [String] {
        let search = method.name == "searchText" || method.name == "searchNearby"
        let responseFields = Set(method.responseSchema.flatMap { schemas[$0]?.keys }.map(Array.init) ?? [])
        var problems: [String] = []
        for raw in mask.split(separator: ",") {
            let path = raw.trimmingCharacters(in: .whitespaces)
            if path == "*" || path.hasSuffix(".*") {
                problems.append("\(method.name): wildcard field mask '\(path)' bills the most expensive SKU")
                continue
            }
            let segments = path.split(separator: ".").map(String.init)
            if search {
                if segments.first == "places", segments.count >= 2 {
                    if !placeFields.contains(segments[1]) { problems.append("\(method.name): '\(path)' is not a Place field") }
                } else if !(segments.count == 1 && responseFields.contains(segments[0])) {
                    problems.append("\(method.name): search mask path '\(path)' must start with 'places.'")
                }
            } else if !placeFields.contains(segments[0]) {
                problems.append("\(method.name): '\(path)' is not a Place field")
            }
        }
        return problems
    }

    private func bodyViolations(_ object: [String: Any], schema: String, at location: String) -> [String] {
        guard let properties = schemas[schema] else { return [] }
        var problems: [String] = []
        for (key, value) in object {
            guard let property = properties[key] else {
                problems.append("\(location): unknown body field '\(key)' (not in \(schema))")
                continue
            }
            guard let ref = property.ref else { continue }
            if let nested = value as? [String: Any] {
                problems += bodyViolations(nested, schema: ref, at: "\(location).\(key)")
            } else if let list = value as? [[String: Any]] {
                for item in list { problems += bodyViolations(item, schema: ref, at: "\(location).\(key)[]") }
            }
        }
        for (key, property) in properties where property.required && object[key] == nil {
            problems.append("\(location): required field '\(key)' is missing")
        }
        return problems
    }
}
