/// The version printed by `places --version` and sent in every provider's `User-Agent`.
public enum PlacesVersion {
    public static let string = "0.1.0"
    public static let userAgentProduct = "places/\(string)"
}
