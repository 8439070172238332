import WeftLayout

extension Node {
    /// For a node that does not manage its subnodes automatically, the index of the first of the `count` nodes
    /// its layout places (`placed(k)`: the k-th's identity, nil for a sublayout that is not a node) that is not
    /// one of its subnodes; nil when the node manages its subnodes, or places only its own. Texture's node frames
    /// only its subnodes (`_layoutSublayouts`) and leaves such a node nowhere; Weft refuses the layout instead
    /// (``HierarchyError/notASubnode(node:placed:place:)``). The subnodes are read once, with no lock.
    func firstPlacedNonSubnode(count: Int, _ placed: (Int) -> ObjectIdentifier?) -> Int? {
        guard count > 0, !automaticallyManagesSubnodes else { return nil }
        let subnodes = readPlacement { $0.pointee.subnodes }
        // A few subnodes are compared one by one (no allocation), more through a set of their identities.
        if subnodes.count <= 32 {
            for k in 0..<count {
                guard let id = placed(k) else { continue }
                if !subnodes.contains(where: { ObjectIdentifier($0) == id }) { return k }
            }
            return nil
        }
        let own = Set(subnodes.lazy.map(ObjectIdentifier.init))
        for k in 0..<count {
            if let id = placed(k), !own.contains(id) { return k }
        }
        return nil
    }

    /// Refuses the node's own `layout` (for `range`, narrowed) where it places a node that is not one of its
    /// subnodes and the node does not manage its subnodes, with the error a layout pass gives.
    func refuseNonSubnodes(in layout: StoredLayout, range: SizeRange, scale: Double) throws(LayoutError) {
        // (The layout holds its objects while it is checked.)
        func node(_ k: Int) -> Node? { layout.unretainedSublayoutObject(k)?.takeUnretainedValue() as? Node }
        guard let k = firstPlacedNonSubnode(count: layout.sublayoutCount, { node($0).map(ObjectIdentifier.init) }),
              let child = node(k) else { return }
        let error = HierarchyError.notASubnode(node: displayName, placed: child.displayName,
                                               place: place(of: child, range: range, scale: scale))
        throw LayoutError(error.description)
    }
}
