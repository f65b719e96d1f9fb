import PlacesConfig
import PlacesCore
import Testing

@Suite struct StorageSettingsTests {
    @Test func theEnvironmentWinsOverTheFile() throws {
        let root: [String: ConfigValue] = ["storage": .table(["url": .string("postgres://file@db/places"), "pool_size": .integer(4)])]
        let fromFile = try StorageSettings(root: root, environment: [:])
        #expect(fromFile.url == "postgres://file@db/places")
        #expect(fromFile.source == .file)
        #expect(fromFile.poolSize == 4)
        let fromEnvironment = try StorageSettings(root: root, environment: ["PLACES_DATABASE_URL": "postgres://env:pw@db/places"])
        #expect(fromEnvironment.url == "postgres://env:pw@db/places")
        #expect(fromEnvironment.source == .environment)
        #expect(fromEnvironment.redactedURL == "postgres://env:[REDACTED]@db/places")
        #expect(try StorageSettings(root: [:], environment: [:]).url == nil)
    }

    @Test func unknownKeysAndBadValuesAreOneClearLine() {
        #expect(throws: InputError.self) {
            _ = try PlacesConfiguration(root: ["storage": .table(["uri": .string("postgres://x@y/z")])])
        }
        #expect(throws: InputError("config [storage] pool_size must be a whole number of connections from 1 to 1000")) {
            _ = try StorageSettings(root: ["storage": .table(["pool_size": .integer(0)])], environment: [:])
        }
    }

    @Test func configShowNeverPrintsTheDatabasePassword() throws {
        let configuration = try PlacesConfiguration(root: ["storage": .table(["url": .string("postgres://places:hunter2@db:5432/places")])])
        #expect(configuration.redactedDescription.contains("url = \"postgres://places:[REDACTED]@db:5432/places\""))
        #expect(!configuration.redactedDescription.contains("hunter2"))
    }
}
