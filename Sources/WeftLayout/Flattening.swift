/// One element of a flattened layout: the element and its frame in the flattened layout's coordinates.
public struct FlatEntry: Sendable {
    public let element: any LayoutElement
    public let frame: Rect

    public init(element: any LayoutElement, frame: Rect) {
        self.element = element
        self.frame = frame
    }

    /// The element when it has identity (a node).
    public var object: (any LayoutObject)? { element as? any LayoutObject }
}

extension Layout {
    /// The node sublayouts of this layout, in spec-tree order, with frames in this layout's coordinates
    /// (Texture's `filteredNodeLayoutTree`).
    ///
    /// Specs are looked through; a node is kept and not looked into (its own layout holds its subnodes).
    /// This layout's own element is not part of the result even if it is a node.
    public func flattened() -> [FlatEntry] {
        var entries: [FlatEntry] = []
        let sublayouts = self.sublayouts
        if sublayouts.isEmpty { return entries }
        entries.reserveCapacity(storage.header.count - 1)
        for sublayout in sublayouts {
            sublayout.collect(into: &entries, origin: .zero) { $0.isNode }
        }
        return entries
    }

    /// ``flattened()`` with the spec path of each entry from this layout, such as
    /// `layoutSpec.children[1].child` (for error messages).
    public func flattenedWithPlaces() -> [(entry: FlatEntry, place: String)] {
        var entries: [(entry: FlatEntry, place: String)] = []
        func visit(_ layout: Layout, origin: Point, place: String) {
            let absolute = origin + layout.position
            if layout.element.isNode {
                entries.append((FlatEntry(element: layout.element, frame: Rect(origin: absolute, size: layout.size)), place))
                return
            }
            for (i, sublayout) in layout.sublayouts.enumerated() {
                visit(sublayout, origin: absolute, place: place + "." + layout.element.placeOfSublayout(i))
            }
        }
        for (i, sublayout) in sublayouts.enumerated() {
            visit(sublayout, origin: .zero, place: element.placeOfSublayout(i))
        }
        return entries
    }

    /// Every layout in this tree (this one first), in spec-tree order, with frames in this layout's
    /// coordinates.
    public func allFrames() -> [FlatEntry] {
        var entries: [FlatEntry] = []
        collect(into: &entries, origin: Point(x: -position.x, y: -position.y), stopAtMatches: false) { _ in true }
        return entries
    }

    private func collect(
        into entries: inout [FlatEntry], origin: Point, stopAtMatches: Bool = true,
        _ keep: (any LayoutElement) -> Bool
    ) {
        let r = record
        let absolute = origin + r.position
        let element = self.element
        if keep(element) {
            entries.append(FlatEntry(element: element, frame: Rect(origin: absolute, size: r.size)))
            if stopAtMatches { return }
        }
        for sublayout in sublayouts {
            sublayout.collect(into: &entries, origin: absolute, stopAtMatches: stopAtMatches, keep)
        }
    }
}
