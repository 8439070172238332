/// The ranges of a container (a feed) a node is in, nearest last (Texture's `ASInterfaceState`).
///
/// The visible range is inside the display range, which is inside the preload range.
public struct InterfaceState: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Near enough to fetch data for (Texture's preload range).
    public static let preload = InterfaceState(rawValue: 1 << 0)
    /// Near enough to draw (Texture's display range).
    public static let display = InterfaceState(rawValue: 1 << 1)
    /// On screen.
    public static let visible = InterfaceState(rawValue: 1 << 2)

    public var description: String {
        let names = [(Self.preload, "preload"), (.display, "display"), (.visible, "visible")]
            .filter { contains($0.0) }.map(\.1)
        return "[" + names.joined(separator: ", ") + "]"
    }
}
