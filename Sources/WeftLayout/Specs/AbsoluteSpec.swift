/// Places each child at its style's `layoutPosition` (Texture's `ASAbsoluteLayoutSpec`).
///
/// - The range is first narrowed by the spec's style.
/// - Each child's range comes from its own style sizes resolved against the spec's size (the range's max
///   where it is a valid size, see ``Size/isValid``), with `auto` meaning from zero up to the range's max
///   minus the child's position.
/// - Sizing `.default`: the spec fills the range's max on each axis where it is a valid size. `.sizeToFit`
///   (and any axis whose max is infinite or too large to be a size): the spec is the range's min grown to
///   reach every child's far edge. The result is clamped into the range.
public struct AbsoluteSpec: ValueSpec {
    /// Whether the spec fills its range or fits its children.
    public enum Sizing: String, Hashable, Sendable, CaseIterable {
        case `default`, sizeToFit
    }

    public let sizing: Sizing
    public let children: [any LayoutElement]
    public let style: LayoutStyle
    public let identifier: String?

    public init(sizing: Sizing = .default, children: [any LayoutElement], style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.sizing = sizing
        self.children = children
        self.style = style
        self.identifier = identifier
    }

    public var kindName: String { "absolute" }
    public var childElements: [any LayoutElement] { children }

    public func specChild(in arena: SpecArena) -> SpecChild {
        if let refused = arena.refusingDeepNesting(self) { return refused }
        return SpecChild(spec: arena.append(.absolute(sizing), style: style, identifier: identifier, elements: children))
    }
}

extension LayoutBuilder {
    mutating func layoutAbsolute(
        _ arena: SpecArena, _ index: Int32, _ record: SpecRecord, _ sizing: AbsoluteSpec.Sizing, _ range: SizeRange,
        parentSize: Size
    ) throws(LayoutError) -> LayoutRef {
        try arena.validateStyle(of: record)
        let range = arena.narrowed(record, range, parentSize: parentSize)
        var size = range.max.definedParentSize
        let fitWidth = sizing == .sizeToFit || size.width.isNaN
        let fitHeight = sizing == .sizeToFit || size.height.isNaN
        var reach = range.min
        let start = scratch.count
        for i in 0..<Int(record.childCount) {
            let child = arena.child(record, i)
            let childStyle: LayoutStyle
            do {
                childStyle = try arena.checkedStyle(of: child)
            } catch {
                throw error.within("children[\(i)]")
            }
            let position = childStyle.layoutPosition
            let autoRange = SizeRange(
                min: .zero,
                max: Size(width: range.max.width - position.x, height: range.max.height - position.y))
            let childRange = childStyle.resolvedRange(parentSize: size, auto: autoRange)
            let ref = try layoutChild(arena, child, childRange, parentSize: size, place: "children[\(i)]")
            setPosition(ref, position)
            let childSize = self.size(of: ref)
            reach.width = max(reach.width, position.x + childSize.width)
            reach.height = max(reach.height, position.y + childSize.height)
            pushScratch(ref)
        }
        if fitWidth { size.width = reach.width }
        if fitHeight { size.height = reach.height }
        return spec(arena, index, size: range.clamp(size), scratchFrom: start)
    }
}
