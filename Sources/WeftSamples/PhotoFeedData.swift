import WeftLayout
import WeftNodes

/// Deterministic synthetic posts: the same seed gives the same users, places and comments.
public struct PhotoFeedData: Sendable {
    public let seed: UInt64

    public init(seed: UInt64 = 1) {
        self.seed = seed
    }

    static let syllables = ["ka", "ri", "mo", "ten", "sa", "lu", "vi", "on", "ze", "pa", "no", "el", "ja", "bi", "ro", "um"]
    static let places = [
        "Paris", "Lisbon", "Kyoto", "Reykjavik", "Nairobi", "Montreal", "Oaxaca", "Tbilisi", "Hobart", "Bergen",
        "Valparaiso", "Hanoi", "Marrakesh", "Ljubljana", "Cusco", "Tallinn",
    ]
    static let words = [
        "lovely", "light", "what", "a", "view", "the", "colors", "here", "are", "amazing", "wish", "I", "was",
        "there", "so", "good", "morning", "golden", "hour", "again", "never", "gets", "old", "this", "place",
    ]

    /// The post at `index`.
    public func post(_ index: Int) -> PhotoModel {
        var rng = SplitMix64(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index))
        let nameLength = 2 + Int(rng.next() % 3)
        let name = (0..<nameLength).map { _ in Self.syllables[Int(rng.next() % UInt64(Self.syllables.count))] }.joined()
        let commentCount = Int(rng.next() % 4)
        let comments = (0..<commentCount).map { _ -> String in
            let length = 3 + Int(rng.next() % 9)
            return (0..<length).map { _ in Self.words[Int(rng.next() % UInt64(Self.words.count))] }.joined(separator: " ")
        }.joined(separator: "\n")
        return PhotoModel(
            id: index, username: name, avatarURL: "avatar://\(index)", photoURL: "photo://\(index)",
            location: nil, comments: comments)
    }

    /// Where post `index` was taken (what reverse geocoding answers later).
    public func location(_ index: Int) -> String {
        var rng = SplitMix64(seed: (seed &* 0xD1B5_4A32_D192_ED03) ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
        _ = rng.next()
        return Self.places[Int(rng.next() % UInt64(Self.places.count))]
    }

    /// The image behind a URL: avatars are 88 x 88 pixels, photos 1,080 wide and 1,080 or 1,350 tall.
    public func image(for url: String) -> Image {
        let isAvatar = url.hasPrefix("avatar")
        let tall = url.utf8.reduce(0) { $0 &+ Int($1) } % 2 == 1
        let size = isAvatar ? Size(44, 44) : Size(540, tall ? 675 : 540)
        return Image(size: size, name: url)
    }
}

/// SplitMix64: a small, fast, deterministic random number generator (the same seed, the same sequence), for
/// synthetic data and repeatable random tests.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
