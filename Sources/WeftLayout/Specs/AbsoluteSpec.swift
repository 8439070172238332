/// Places each child at its style's `layoutPosition` (Texture's `ASAbsoluteLayoutSpec`).
///
/// - The range is first narrowed by the spec's style.
/// - Each child's range comes from its own style sizes resolved against the spec's size (the range's max
///   where it is a valid size, see ``Size/isValid``), with `auto` meaning from zero up to the range's max
///   minus the child's position.
/// - Sizing `.default`: the spec fills the range's max on each axis where it is a valid size. `.sizeToFit`
///   (and any axis whose max is infinite or too large to be a size): the spec is the range's min grown to
///   reach every child's far edge. The result is clamped into the range.
public final class AbsoluteSpec: LayoutSpec, @unchecked Sendable {
    /// Whether the spec fills its range or fits its children.
    public enum Sizing: String, Hashable, Sendable, CaseIterable {
        case `default`, sizeToFit
    }

    public let sizing: Sizing
    public let children: [any LayoutElement]

    public init(sizing: Sizing = .default, children: [any LayoutElement], style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.sizing = sizing
        self.children = children
        super.init(style: style, identifier: identifier)
    }

    public override var kindName: String { "absolute" }
    public override var childElements: [any LayoutElement] { children }

    public override func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        let range = try builder.resolve(style, range: range, parentSize: parentSize)
        var size = range.max.definedParentSize
        let fitWidth = sizing == .sizeToFit || size.width.isNaN
        let fitHeight = sizing == .sizeToFit || size.height.isNaN
        var reach = range.min
        let start = builder.scratch.count
        for (i, child) in children.enumerated() {
            let childStyle = child.style
            do {
                try childStyle.validate()
            } catch {
                throw error.within("children[\(i)]")
            }
            let position = childStyle.layoutPosition
            let autoRange = SizeRange(
                min: .zero,
                max: Size(width: range.max.width - position.x, height: range.max.height - position.y))
            let childRange = childStyle.resolvedRange(parentSize: size, auto: autoRange)
            let ref = try layoutChild(child, childRange, parentSize: size, in: &builder, place: "children[\(i)]")
            builder.setPosition(ref, position)
            let childSize = builder.size(of: ref)
            reach.width = max(reach.width, position.x + childSize.width)
            reach.height = max(reach.height, position.y + childSize.height)
            builder.pushScratch(ref)
        }
        if fitWidth { size.width = reach.width }
        if fitHeight { size.height = reach.height }
        return builder.layout(self, size: range.clamp(size), scratchFrom: start)
    }
}
