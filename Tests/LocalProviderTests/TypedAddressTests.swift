import Testing
@testable import PlaceIndex

/// How typed words read as an address on a street: what comes after the house number in Finnish and other
/// European addresses (a staircase letter, an apartment, a range's other end) is set aside, so the number alone
/// can still be looked up.
@Suite struct TypedAddressTests {
    func read(_ text: String) -> TypedAddress? { TypedAddress(text.split(separator: " ").map(String.init)) }

    @Test func theStreetAndTheNumberInEitherOrder() {
        #expect(read("mannerheimintie 999") == TypedAddress(street: ["mannerheimintie"], numbers: ["999"]))
        #expect(read("999 mannerheimintie") == TypedAddress(street: ["mannerheimintie"], numbers: ["999"]))
        #expect(read("norra esplanaden 33") == TypedAddress(street: ["norra", "esplanaden"], numbers: ["33"]))
    }

    @Test func whatFollowsTheNumberIsSetAside() {
        // Staircase and apartment ("B 5", "as 5"), a letter written apart or joined, a range typed as two words.
        #expect(read("fredrikinkatu 30 b 5") == TypedAddress(street: ["fredrikinkatu"], numbers: ["30b", "30"]))
        #expect(read("fredrikinkatu 30 as 5") == TypedAddress(street: ["fredrikinkatu"], numbers: ["30"]))
        #expect(read("kaivokatu 8a") == TypedAddress(street: ["kaivokatu"], numbers: ["8a", "8"]))
        #expect(read("kaivokatu 8 a") == TypedAddress(street: ["kaivokatu"], numbers: ["8a", "8"]))
        #expect(read("eerikinkatu 4 6") == TypedAddress(street: ["eerikinkatu"], numbers: ["4"]))
    }

    @Test func wordsThatAreNoAddressAreNotReadAsOne() {
        #expect(read("mannerheimintie") == nil)
        #expect(read("00150 helsinki") == nil, "a postcode and a city")
        #expect(read("5") == nil)
        // A word after the number that no address writes there: a name, not an address.
        #expect(read("pizzeria 21 napoli") == nil)
        #expect(read("kaivokatu 8 b 5 12 3") == nil)
        // A number among the street's words before the house number ("Route 66 5" read as "Route 66", number 5)
        // is not read: the first number is the house number.
        #expect(read("66 route 5") == nil)
    }
}
