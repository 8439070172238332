/// Gives its child a fixed height-to-width ratio (Texture's `ASRatioLayoutSpec`).
///
/// `ratio` is height / width: 0.5 is twice as wide as tall. It must be finite and > 0.
///
/// - The range is first narrowed by the spec's style.
/// - Where the range's max width is a valid size (``Size/isValid(_:)``: not negative and below 1e7), one
///   candidate is (max width, ratio x max width rounded down to the pixel grid); where the max height is
///   valid, another is (max height / ratio rounded down, max height).
///   Each candidate is clamped into the range and the one whose proportions are closest to the ratio wins
///   (the width-based one on a tie).
/// - The child is laid out in exactly the winning size (intersected with the range, the range winning), with
///   it as the parent size; with no valid max at all the child gets the range unchanged (parent size
///   undefined).
/// - The spec takes the child's size.
public struct RatioSpec: ValueSpec {
    public let ratio: Double
    public let child: any LayoutElement
    public let style: LayoutStyle
    public let identifier: String?

    public init(ratio: Double, child: any LayoutElement, style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.ratio = ratio
        self.child = child
        self.style = style
        self.identifier = identifier
    }

    public var kindName: String { "ratio" }
    public var childElements: [any LayoutElement] { [child] }
    public func placeOfSublayout(_ index: Int) -> String { "child" }

    public func specChild(in arena: SpecArena) -> SpecChild {
        if let refused = arena.refusingDeepNesting(self) { return refused }
        return SpecChild(spec: arena.append(.ratio(ratio), style: style, identifier: identifier, child: child))
    }
}

extension LayoutBuilder {
    mutating func layoutRatio(
        _ arena: SpecArena, _ index: Int32, _ record: SpecRecord, _ ratio: Double, _ range: SizeRange, parentSize: Size
    ) throws(LayoutError) -> LayoutRef {
        guard ratio.isFinite && ratio > 0 else {
            throw LayoutError("expected a ratio > 0, got \(formatPoints(ratio))", path: "ratio")
        }
        try arena.validateStyle(of: record)
        let range = arena.narrowed(record, range, parentSize: parentSize)
        var best: Size?
        if Size.isValid(range.max.width) {
            best = range.clamp(Size(width: range.max.width, height: grid.floor(ratio * range.max.width)))
        }
        if Size.isValid(range.max.height) {
            let option = range.clamp(Size(width: grid.floor(range.max.height / ratio), height: range.max.height))
            if let current = best {
                if abs(current.height / current.width - ratio) > abs(option.height / option.width - ratio) {
                    best = option
                }
            } else {
                best = option
            }
        }
        let childRange = best.map { range.intersection(SizeRange(exactly: $0)) } ?? range
        let childParent = best ?? Size(width: .nan, height: .nan)
        let ref = try layoutChild(arena, arena.child(record, 0), childRange, parentSize: childParent, place: "child")
        return spec(arena, index, size: size(of: ref), sublayout: ref)
    }
}
