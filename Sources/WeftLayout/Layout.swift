/// A computed layout: an element, its size, its position in its parent, and its sublayouts.
///
/// An immutable value that any thread may read. The whole tree lives in one buffer; a `Layout` is a view of
/// one entry, so walking ``sublayouts`` allocates nothing. Sizes and positions lie on the pixel grid of the
/// scale the layout was computed for.
public struct Layout: Sendable {
    @usableFromInline let shared: SharedStorage
    @usableFromInline let index: Int32
    /// The root's element when the storage does not hold it (see ``LayoutBuilder/finishFlattened(_:)``).
    @usableFromInline let attached: (any LayoutElement)?

    init(storage: LayoutStorage, index: Int32, attached: (any LayoutElement)? = nil) {
        self.shared = SharedStorage(buffer: storage)
        self.index = index
        self.attached = attached
    }

    @usableFromInline
    var storage: LayoutStorage { shared.buffer }

    @inlinable
    var record: LayoutStorage.Record {
        shared.buffer.withUnsafeMutablePointerToElements { $0[Int(index)] }
    }

    /// The element this layout was computed for.
    public var element: any LayoutElement { attached ?? record.element }

    /// This layout with `element` as its element: how a node hands out its cached layout, which does not hold
    /// the node itself (see ``LayoutBuilder/finishFlattened(_:)``).
    public func attaching(_ element: any LayoutElement) -> Layout {
        Layout(storage: storage, index: index, attached: element)
    }

    /// This layout as its storage holds it, without an element attached by ``attaching(_:)``.
    public var detached: Layout {
        attached == nil ? self : Layout(storage: storage, index: index)
    }

    /// The size, in points.
    public var size: Size { record.size }

    /// The position of the top-left corner in the parent layout's coordinates (the root's is zero).
    public var position: Point { record.position }

    /// Position and size together.
    public var frame: Rect { Rect(origin: record.position, size: record.size) }

    /// The sublayouts in spec order (for a background spec: the background first, then the child).
    public var sublayouts: Sublayouts {
        let r = record
        return Sublayouts(storage: storage, start: r.firstChild, count: r.childCount)
    }

    /// The number of layouts in this tree, this one included.
    public var treeCount: Int {
        var count = 1
        for sublayout in sublayouts { count += sublayout.treeCount }
        return count
    }

    /// The scale (pixels per point) this layout was rounded for.
    public var scale: Double { storage.header.scale }

    /// The sublayouts of a layout, as a random-access collection.
    public struct Sublayouts: RandomAccessCollection, Sendable {
        let shared: SharedStorage
        let start: Int32
        public let count: Int

        var storage: LayoutStorage { shared.buffer }

        init(storage: LayoutStorage, start: Int32, count: Int32) {
            self.shared = SharedStorage(buffer: storage)
            self.start = start
            self.count = Int(count)
        }

        public var startIndex: Int { 0 }
        public var endIndex: Int { count }

        public subscript(position: Int) -> Layout {
            precondition(position >= 0 && position < count, "sublayout index out of range")
            return Layout(storage: storage, index: start + Int32(position))
        }
    }
}

/// A layout buffer shared between threads.
///
/// `@unchecked Sendable`: a buffer is written once in ``LayoutBuilder/finish(_:)``, before any `Layout`
/// refers to it, and only read afterwards. (`ManagedBuffer` itself is never Sendable, hence this wrapper.)
@usableFromInline
struct SharedStorage: @unchecked Sendable {
    @usableFromInline let buffer: LayoutStorage
}

/// The buffer that holds one layout tree, children of each entry stored next to each other.
@usableFromInline
final class LayoutStorage: ManagedBuffer<LayoutStorage.Header, LayoutStorage.Record> {

    @usableFromInline
    struct Header {
        var count: Int
        var scale: Double
    }

    @usableFromInline
    struct Record {
        @usableFromInline var element: any LayoutElement
        @usableFromInline var size: Size
        @usableFromInline var position: Point
        @usableFromInline var firstChild: Int32
        @usableFromInline var childCount: Int32
    }

    static func make(count: Int, scale: Double) -> LayoutStorage {
        let buffer = Self.create(minimumCapacity: count) { _ in Header(count: 0, scale: scale) }
        return unsafeDowncast(buffer, to: LayoutStorage.self)
    }

    deinit {
        withUnsafeMutablePointers { header, elements in
            _ = elements.deinitialize(count: header.pointee.count)
        }
    }
}

extension LayoutBuilder {
    /// Copies the tree under `root` out of the arena into a compact, immutable ``Layout``.
    ///
    /// The builder keeps its contents: call ``reset()`` or ``rewind(to:)`` to reuse the space. Positions
    /// are not checked here: ``Layout/compute(_:in:scale:)`` refuses a layout whose positions are out of
    /// range (``Layout/positionLimit``).
    public func finish(_ root: LayoutRef) -> Layout {
        finishCheckingPositions(root).layout
    }

    /// ``finish(_:)``, and whether every position in the root's coordinates, rounded, lies within
    /// ±``Layout/positionLimit`` (false for NaN or infinity).
    func finishCheckingPositions(_ root: LayoutRef) -> (layout: Layout, positionsInRange: Bool) {
        let count = subtreeCount(root.index)
        var inRange = true
        let storage = LayoutStorage.make(count: count, scale: grid.scale)
        records.withUnsafeBufferPointer { source in
            edges.withUnsafeBufferPointer { edges in
                storage.withUnsafeMutablePointers { header, out in
                    // Breadth-first, so that the children of every entry are contiguous. `firstChild` holds the
                    // source index of an entry until the entry's own children are placed.
                    func place(_ sourceIndex: Int32, at slot: Int) {
                        let r = source[Int(sourceIndex)]
                        (out + slot).initialize(to: LayoutStorage.Record(
                            element: r.element, size: r.size, position: r.position,
                            firstChild: sourceIndex, childCount: 0))
                    }
                    place(root.index, at: 0)
                    out[0].position = .zero
                    var next = 1
                    var slot = 0
                    while slot < next {
                        let r = source[Int(out[slot].firstChild)]
                        out[slot].firstChild = Int32(truncatingIfNeeded: next)
                        out[slot].childCount = r.edgeCount
                        let parentOrigin = out[slot].position
                        for e in 0..<Int(r.edgeCount) {
                            place(edges[Int(r.edgeStart) + e], at: next)
                            // For now `position` holds the exact position in the root's coordinates.
                            out[next].position = parentOrigin + out[next].position
                            next += 1
                        }
                        slot += 1
                    }
                    // Children come after their parents, so walking backwards converts every child while its
                    // parent still holds its exact root position.
                    let grid = self.grid
                    for parent in stride(from: next - 1, through: 0, by: -1) {
                        let origin = out[parent].position
                        let rounded = Point(x: grid.ceil(origin.x), y: grid.ceil(origin.y))
                        inRange = inRange && Layout.isInRange(rounded)
                        let first = Int(out[parent].firstChild)
                        for child in first..<first + Int(out[parent].childCount) {
                            let p = out[child].position
                            out[child].position = Point(x: grid.ceil(p.x) - rounded.x, y: grid.ceil(p.y) - rounded.y)
                        }
                    }
                    out[0].position = .zero
                    header.pointee.count = next
                }
            }
        }
        return (Layout(storage: storage, index: 0), inRange)
    }

    private func subtreeCount(_ index: Int32) -> Int {
        let r = records[Int(index)]
        var count = 1
        for e in 0..<Int(r.edgeCount) {
            count += subtreeCount(edges[Int(r.edgeStart) + e])
        }
        return count
    }
}

extension LayoutBuilder {
    /// Copies the tree under `root` out of the arena flattened: the root, with the nodes of its subtree as its
    /// only sublayouts, in spec order, at their positions in the root's coordinates (Texture's
    /// `filteredNodeLayoutTree`). Specs between are dropped (and not retained); nodes are not looked into.
    ///
    /// This is what a node caches: enough to place its subnodes, and nothing that keeps its spec alive. Nor
    /// the node itself: the root's entry holds ``DetachedRoot/element`` instead of the root's element (a node
    /// caching a layout that held it would keep itself alive forever); the layout returned has the root's
    /// element attached (``Layout/attaching(_:)``), and ``Layout/detached`` drops it for storing.
    public func finishFlattened(_ root: LayoutRef) -> Layout {
        // Count the nodes below the root first, so that the storage is the only allocation.
        func countNodes(_ index: Int32) -> Int {
            let r = records[Int(index)]
            var count = 0
            for e in 0..<Int(r.edgeCount) {
                let child = edges[Int(r.edgeStart) + e]
                count += records[Int(child)].element.isNode ? 1 : countNodes(child)
            }
            return count
        }
        let nodeCount = countNodes(root.index)
        let storage = LayoutStorage.make(count: nodeCount + 1, scale: grid.scale)
        let grid = self.grid
        records.withUnsafeBufferPointer { source in
            edges.withUnsafeBufferPointer { edges in
                storage.withUnsafeMutablePointers { header, out in
                    let r = source[Int(root.index)]
                    out.initialize(to: LayoutStorage.Record(
                        element: DetachedRoot.element, size: r.size, position: .zero, firstChild: 1,
                        childCount: Int32(truncatingIfNeeded: nodeCount)))
                    var next = 1
                    // The nodes in spec order, at their exact positions in the root's coordinates, rounded.
                    func place(_ index: Int32, _ origin: Point) {
                        let parent = source[Int(index)]
                        for e in 0..<Int(parent.edgeCount) {
                            let child = edges[Int(parent.edgeStart) + e]
                            let c = source[Int(child)]
                            let position = origin + c.position
                            if c.element.isNode {
                                (out + next).initialize(to: LayoutStorage.Record(
                                    element: c.element, size: c.size,
                                    position: Point(x: grid.ceil(position.x), y: grid.ceil(position.y)),
                                    firstChild: 0, childCount: 0))
                                next += 1
                            } else {
                                place(child, position)
                            }
                        }
                    }
                    place(root.index, .zero)
                    header.pointee.count = next
                }
            }
        }
        return Layout(storage: storage, index: 0, attached: records[Int(root.index)].element)
    }
}

/// The element a flattened layout's storage holds in place of its root (``LayoutBuilder/finishFlattened(_:)``).
public final class DetachedRoot: LayoutElement {
    /// The one placeholder.
    public static let element = DetachedRoot()

    public var style: LayoutStyle { LayoutStyle() }
    public var kindName: String { "detached" }

    public func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        builder.leaf(self, size: range.min)
    }
}

