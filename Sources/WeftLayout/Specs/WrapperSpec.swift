/// Lays each child out in the spec's own range and takes the largest of their sizes (Texture's
/// `ASWrapperLayoutSpec`).
///
/// - The range is first narrowed by the spec's style.
/// - Every child gets that range, with the range's max as the parent size, and sits at the origin.
/// - The spec's size is the range's min, grown in each dimension to the largest child.
public struct WrapperSpec: ValueSpec {
    public let children: [any LayoutElement]
    public let style: LayoutStyle
    public let identifier: String?

    public init(_ children: [any LayoutElement], style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.children = children
        self.style = style
        self.identifier = identifier
    }

    public init(_ child: any LayoutElement, style: LayoutStyle = LayoutStyle(), identifier: String? = nil) {
        self.init([child], style: style, identifier: identifier)
    }

    public var kindName: String { "wrapper" }
    public var childElements: [any LayoutElement] { children }

    public func specChild(in arena: SpecArena) -> SpecChild {
        if let refused = arena.refusingDeepNesting(self) { return refused }
        return SpecChild(spec: arena.append(.wrapper, style: style, identifier: identifier, elements: children))
    }
}

extension LayoutBuilder {
    mutating func layoutWrapper(
        _ arena: SpecArena, _ index: Int32, _ record: SpecRecord, _ range: SizeRange, parentSize: Size
    ) throws(LayoutError) -> LayoutRef {
        try arena.validateStyle(of: record)
        let resolved = arena.narrowed(record, range, parentSize: parentSize)
        var size = resolved.min
        let start = scratch.count
        for i in 0..<Int(record.childCount) {
            let ref = try layoutChild(arena, arena.child(record, i), resolved, parentSize: resolved.max, place: "children[\(i)]")
            let childSize = self.size(of: ref)
            size.width = max(size.width, childSize.width)
            size.height = max(size.height, childSize.height)
            pushScratch(ref)
        }
        return spec(arena, index, size: size, scratchFrom: start)
    }
}
