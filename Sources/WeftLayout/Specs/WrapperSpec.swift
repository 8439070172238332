/// Lays each child out in the spec's own range and takes the largest of their sizes (Texture's
/// `ASWrapperLayoutSpec`).
///
/// - The range is first narrowed by the spec's style.
/// - Every child gets that range, with the range's max as the parent size, and sits at the origin.
/// - The spec's size is the range's min, grown in each dimension to the largest child.
public final class WrapperSpec: LayoutSpec, @unchecked Sendable {
    public let children: [any LayoutElement]

    public init(_ children: [any LayoutElement], style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.children = children
        super.init(style: style, identifier: identifier)
    }

    public convenience init(_ child: any LayoutElement, style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.init([child], style: style, identifier: identifier)
    }

    public override var kindName: String { "wrapper" }
    public override var childElements: [any LayoutElement] { children }

    public override func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        let resolved = try builder.resolve(style, range: range, parentSize: parentSize)
        var size = resolved.min
        let start = builder.scratch.count
        for (i, child) in children.enumerated() {
            let ref = try layoutChild(child, resolved, parentSize: resolved.max, in: &builder, place: "children[\(i)]")
            let childSize = builder.size(of: ref)
            size.width = max(size.width, childSize.width)
            size.height = max(size.height, childSize.height)
            builder.pushScratch(ref)
        }
        return builder.layout(self, size: size, scratchFrom: start)
    }
}
