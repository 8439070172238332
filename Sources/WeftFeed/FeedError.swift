/// Why a feed refused a change. The feed is left exactly as it was.
public struct FeedError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
