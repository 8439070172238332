/// How far ahead of and behind the viewport a range reaches, in screenfuls (Texture's
/// `ASRangeTuningParameters`). "Leading" is the direction of scrolling.
public struct RangeTuning: Hashable, Sendable {
    public var leadingScreenfuls: Double
    public var trailingScreenfuls: Double

    public init(leading: Double, trailing: Double) {
        leadingScreenfuls = leading
        trailingScreenfuls = trailing
    }
}

/// Which tuning a feed uses: Texture's full mode while it is on screen, its minimum mode otherwise.
public enum RangeMode: Sendable, Hashable {
    case full
    case minimum
}

/// The display and preload tunings of both modes; the defaults are Texture's (`ASAbstractLayoutController`).
public struct RangeTunings: Hashable, Sendable {
    public var fullDisplay = RangeTuning(leading: 1.0, trailing: 0.5)
    public var fullPreload = RangeTuning(leading: 2.5, trailing: 1.5)
    public var minimumDisplay = RangeTuning(leading: 0.25, trailing: 0.25)
    public var minimumPreload = RangeTuning(leading: 0.5, trailing: 0.25)

    public init() {}

    func display(_ mode: RangeMode) -> RangeTuning { mode == .full ? fullDisplay : minimumDisplay }
    func preload(_ mode: RangeMode) -> RangeTuning { mode == .full ? fullPreload : minimumPreload }
}

/// The direction of the last scroll.
public enum ScrollDirection: Sendable, Hashable {
    case none, down, up
}
