/// A computed layout: an element, its size, its position in its parent, and its sublayouts.
///
/// An immutable value that any thread may read. The whole tree lives in one buffer; a `Layout` is a view of
/// one entry, so walking ``sublayouts`` allocates nothing. Sizes and positions lie on the pixel grid of the
/// scale the layout was computed for.
public struct Layout: Sendable {
    @usableFromInline let shared: SharedStorage
    @usableFromInline let index: Int32
    /// The root's element when the storage does not hold it (see ``LayoutBuilder/finishFlattened(_:)``).
    @usableFromInline let attached: (any LayoutObject)?

    init(storage: LayoutStorage, index: Int32, attached: (any LayoutObject)? = nil) {
        self.shared = SharedStorage(buffer: storage)
        self.index = index
        self.attached = attached
    }

    @usableFromInline
    init(shared: SharedStorage, index: Int32, attached: (any LayoutObject)?) {
        self.shared = shared
        self.index = index
        self.attached = attached
    }

    @usableFromInline
    var storage: LayoutStorage { shared.buffer }

    @inlinable
    var record: LayoutStorage.Record {
        shared.buffer.withUnsafeMutablePointerToElements { $0[Int(index)] }
    }

    /// Reads one field of the record in place (copying the whole record would retain its element).
    @inlinable
    func field<T>(_ read: (UnsafeMutablePointer<LayoutStorage.Record>) -> T) -> T {
        shared.buffer.withUnsafeMutablePointerToElements { read($0 + Int(index)) }
    }

    /// The element this layout was computed for (a spec of an arena as a ``Spec`` value).
    public var element: any LayoutElement {
        if let attached { return attached }
        return field { $0.pointee.element.element }
    }

    /// The element when it has identity (a node), without a dynamic cast: nil for specs and value leaves.
    public var object: (any LayoutObject)? {
        if let attached { return attached }
        return field { $0.pointee.element.object }
    }

    /// This layout with `element` as its element: how a node hands out its cached layout, which does not hold
    /// the node itself (see ``LayoutBuilder/finishFlattened(_:)``).
    @inlinable
    public func attaching(_ element: any LayoutObject) -> Layout {
        Layout(shared: shared, index: index, attached: element)
    }

    /// This layout as its storage holds it, without an element attached by ``attaching(_:)``.
    public var detached: Layout { stored.layout }

    /// The size, in points.
    public var size: Size { field { $0.pointee.size } }

    /// The position of the top-left corner in the parent layout's coordinates (the root's is zero).
    public var position: Point { field { $0.pointee.position } }

    /// Position and size together.
    public var frame: Rect { field { Rect(origin: $0.pointee.position, size: $0.pointee.size) } }

    /// The sublayouts in spec order (for a background spec: the background first, then the child).
    public var sublayouts: Sublayouts {
        let (start, count) = field { ($0.pointee.firstChild, $0.pointee.childCount) }
        return Sublayouts(storage: storage, start: start, count: count)
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

        /// No sublayouts.
        public static var empty: Sublayouts { Sublayouts(storage: emptyStorage.buffer, start: 0, count: 0) }

        public subscript(position: Int) -> Layout {
            precondition(position >= 0 && position < count, "sublayout index out of range")
            return Layout(storage: storage, index: start + Int32(position))
        }
    }
}

/// A layout as a node's cache and a layout pass keep it: its buffer and entry, with no element attached.
///
/// One reference and an index, so that copying it (or a struct that holds it) is one retain: a `Layout?`'s
/// optional attached element made every copy of an entry that held one a call through the type's value
/// witnesses. Readers for the node walks read the buffer in place, as `Layout`'s do.
@usableFromInline
package struct StoredLayout: Sendable {
    @usableFromInline let shared: SharedStorage
    @usableFromInline let index: Int32

    @usableFromInline
    init(shared: SharedStorage, index: Int32) {
        self.shared = shared
        self.index = index
    }

    /// The layout, with no element attached.
    @inlinable
    package var layout: Layout { Layout(shared: shared, index: index, attached: nil) }

    /// The layout with `element` as its element (see ``Layout/attaching(_:)``).
    @inlinable
    package func attaching(_ element: any LayoutObject) -> Layout {
        Layout(shared: shared, index: index, attached: element)
    }

    @inlinable
    func field<T>(_ read: (UnsafeMutablePointer<LayoutStorage.Record>) -> T) -> T {
        shared.buffer.withUnsafeMutablePointerToElements { read($0 + Int(index)) }
    }

    @inlinable
    func sublayoutField<T>(_ k: Int, _ read: (UnsafeMutablePointer<LayoutStorage.Record>) -> T) -> T {
        shared.buffer.withUnsafeMutablePointerToElements { base in read(base + (Int(base[Int(index)].firstChild) + k)) }
    }

    /// The size, read in place.
    @inlinable
    package var size: Size { field { $0.pointee.size } }

    /// The number of sublayouts, read in place.
    @inlinable
    package var sublayoutCount: Int { field { Int($0.pointee.childCount) } }

    /// The object of sublayout `k` if its element has identity (a node), nil for specs and values, unretained
    /// (the layout holds it: valid while the layout lives), with no layout value made for the sublayout (for the
    /// walks that visit every node of a flattened layout): by the address a flattened layout's record keeps
    /// (``LayoutBuilder/finishFlattened(_:)``, what a node caches), or read out of the record's element where
    /// there is none (other layouts, and elements that are not objects).
    @inlinable
    package func unretainedSublayoutObject(_ k: Int) -> Unmanaged<AnyObject>? {
        sublayoutField(k) { record in
            if let address = record.pointee.objectAddress { return Unmanaged<AnyObject>.fromOpaque(address) }
            return Self.unretainedObject(of: record)
        }
    }

    /// The object of `record`'s element, read out of the element (a copy of the enum), unretained.
    @usableFromInline @inline(never)
    static func unretainedObject(of record: UnsafeMutablePointer<LayoutStorage.Record>) -> Unmanaged<AnyObject>? {
        record.pointee.element.object.map { Unmanaged.passUnretained($0 as AnyObject) }
    }

    /// The frame of sublayout `k` (``Layout/sublayouts```[k].frame`), read in place.
    @inlinable
    package func sublayoutFrame(_ k: Int) -> Rect {
        sublayoutField(k) { Rect(origin: $0.pointee.position, size: $0.pointee.size) }
    }
}

/// A stored layout whose root is the first record of its storage (as every node's layout is, made by
/// ``LayoutBuilder/finishFlattenedStored(_:)``), held as one reference: what a node's list of subnodes keeps of
/// the layout that places them (one word, which an enum of it and an array also fits in).
package struct StoredRootLayout: Sendable {
    @usableFromInline let shared: SharedStorage

    /// `layout` as one reference; nil if its root is not its storage's first record.
    @inlinable
    package init?(_ layout: StoredLayout) {
        guard layout.index == 0 else { return nil }
        shared = layout.shared
    }

    @inlinable
    package var layout: StoredLayout { StoredLayout(shared: shared, index: 0) }

    /// Whether `other` is this layout: compared, not read.
    @inlinable
    package func isSame(as other: StoredRootLayout) -> Bool { shared.buffer === other.shared.buffer }
}

extension Layout {
    /// This layout as a cache keeps it: without the element attached by ``attaching(_:)``, if any.
    @inlinable
    package var stored: StoredLayout { StoredLayout(shared: shared, index: index) }
}

/// The storage of ``Layout/Sublayouts/empty`` (never written).
private let emptyStorage = SharedStorage(buffer: LayoutStorage.make(count: 0, scale: 1))

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
        /// The arena of the specs in this tree (``Element/spec`` entries do not retain it themselves).
        var arena: SpecArena?
    }

    /// What an entry belongs to, held strongly (a spec by its arena and index).
    @usableFromInline
    enum Element {
        /// A spec of the header's arena.
        case spec(Unmanaged<SpecArena>, Int32)
        /// A spec of another arena (a tree made of several).
        case specElsewhere(SpecArena, Int32)
        case object(any LayoutObject)
        case element(any LayoutElement)
        /// The root of a flattened layout, which does not hold its element (``LayoutBuilder/finishFlattened(_:)``).
        case detached

        /// The object, for an element with identity; nil otherwise.
        @inlinable
        var object: (any LayoutObject)? {
            if case .object(let object) = self { return object }
            return nil
        }

        @usableFromInline
        var element: any LayoutElement {
            switch self {
            case .spec(let arena, let index): return Spec(arena: arena.takeUnretainedValue(), index: index)
            case .specElsewhere(let arena, let index): return Spec(arena: arena, index: index)
            case .object(let object): return object
            case .element(let element): return element
            case .detached: return DetachedRoot()
            }
        }
    }

    @usableFromInline
    struct Record {
        @usableFromInline var element: Element
        @usableFromInline var size: Size
        @usableFromInline var position: Point
        @usableFromInline var firstChild: Int32
        @usableFromInline var childCount: Int32
        /// In a flattened layout, the address of the element's object where it is `.object` (held by `element`),
        /// nil otherwise (and in other layouts, where a reader falls back to the element): for the walk of a layout
        /// pass, which only needs the object and cannot read it out of the enum in place (reading any case of the
        /// enum through a pointer copied all of it through its value witness, a retain and a release).
        @usableFromInline var objectAddress: UnsafeRawPointer?
    }

    static func make(count: Int, scale: Double) -> LayoutStorage {
        let buffer = Self.create(minimumCapacity: count) { _ in Header(count: 0, scale: scale, arena: nil) }
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
    public mutating func finish(_ root: LayoutRef) -> Layout {
        finishCheckingPositions(root).layout
    }

    /// The stored record of the element `source` refers to, with its `size`, `position` and children (one switch
    /// over the source for the element and, `withAddress`, its object's address). The first spec arena met
    /// becomes the storage's (`arena`, retained once by the header), and its specs are held through it; a spec
    /// of another arena retains its own. (Without the address where no walk reads it: pinned by the cold
    /// spec-tree rows, Benchmarks 1.)
    @inline(__always)
    func storedRecord(
        _ source: Source, arena: inout SpecArena?, size: Size, position: Point, firstChild: Int32, childCount: Int32,
        withAddress: Bool
    ) -> LayoutStorage.Record {
        let element: LayoutStorage.Element
        var address: UnsafeRawPointer?
        switch source {
        case .spec(let unmanaged, let index):
            // Compared by address: taking the arena out of `unmanaged` for each spec retained and released it.
            if let arena, Unmanaged.passUnretained(arena).toOpaque() == unmanaged.toOpaque() {
                element = .spec(unmanaged, index)
            } else {
                let specArena = unmanaged.takeUnretainedValue()
                if arena == nil {
                    arena = specArena
                    element = .spec(unmanaged, index)
                } else {
                    element = .specElsewhere(specArena, index)
                }
            }
        case .object(let unowned):
            element = .object(unowned.object)
            if withAddress { address = UnsafeRawPointer(Unmanaged.passUnretained(unowned.object as AnyObject).toOpaque()) }
        case .element(let index):
            element = .element(elements[Int(index)])
        }
        return LayoutStorage.Record(
            element: element, size: size, position: position, firstChild: firstChild, childCount: childCount,
            objectAddress: address)
    }

    /// ``finish(_:)``, and whether every position in the root's coordinates, rounded, lies within
    /// ±``Layout/positionLimit`` (false for NaN or infinity).
    mutating func finishCheckingPositions(_ root: LayoutRef) -> (layout: Layout, positionsInRange: Bool) {
        // Breadth-first order first (so that the children of every entry are contiguous), with each entry's
        // position in the root's coordinates, exact and rounded, and its rounded position in its parent's;
        // then each record is written once. (Writing placeholders for children first and overwriting them
        // later destroyed and assigned every record through the element enum's value witnesses.)
        finishOrder.removeAll()
        let grid = self.grid
        // The root's rounded position is the grid's ceil(0), +0 (``PixelGrid`` never gives -0).
        finishOrder.append(FinishEntry(record: root.index, exact: .zero, rounded: .zero, relative: .zero))
        var inRange = true
        records.withUnsafeBufferPointer { source in
            edges.withUnsafeBufferPointer { edges in
                var cursor = 0
                while cursor < finishOrder.count {
                    let parent = finishOrder[cursor]
                    let r = source[Int(parent.record)]
                    for e in 0..<Int(r.edgeCount) {
                        let child = edges[Int(r.edgeStart) + e]
                        let exact = parent.exact + source[Int(child)].position
                        let rounded = Point(x: grid.ceil(exact.x), y: grid.ceil(exact.y))
                        inRange = inRange && Layout.isInRange(rounded)
                        finishOrder.append(FinishEntry(
                            record: child, exact: exact, rounded: rounded,
                            relative: Point(x: rounded.x - parent.rounded.x, y: rounded.y - parent.rounded.y)))
                    }
                    cursor += 1
                }
            }
        }
        let count = finishOrder.count
        let storage = LayoutStorage.make(count: count, scale: grid.scale)
        var arena: SpecArena?
        records.withUnsafeBufferPointer { source in
            finishOrder.withUnsafeBufferPointer { order in
                storage.withUnsafeMutablePointers { header, out in
                    // Each entry's children follow the ones of the entries before it.
                    var next = 1
                    for slot in 0..<count {
                        let r = source[Int(order[slot].record)]
                        (out + slot).initialize(to: storedRecord(
                            r.source, arena: &arena, size: r.size, position: order[slot].relative,
                            firstChild: Int32(truncatingIfNeeded: next), childCount: r.edgeCount, withAddress: false))
                        next += Int(r.edgeCount)
                    }
                    header.pointee.count = count
                    header.pointee.arena = arena
                }
            }
        }
        return (Layout(storage: storage, index: 0), inRange)
    }
}

extension LayoutBuilder {
    /// Copies the tree under `root` out of the arena flattened: the root, with the nodes of its subtree as its
    /// only sublayouts, in spec order, at their positions in the root's coordinates (Texture's
    /// `filteredNodeLayoutTree`). Specs between are dropped (and not retained); nodes are not looked into.
    ///
    /// This is what a node caches: enough to place its subnodes, and nothing that keeps its spec alive. Nor
    /// the node itself: the root's entry does not hold the root's element (a node caching a layout that held
    /// it would keep itself alive forever); the layout returned has the root's element attached
    /// (``Layout/attaching(_:)``), and ``Layout/detached`` drops it (a node's cache keeps the ``StoredLayout``).
    public mutating func finishFlattened(_ root: LayoutRef) -> Layout {
        let stored = finishFlattenedStored(root)
        if case .object(let unowned) = records[Int(root.index)].source { return stored.attaching(unowned.object) }
        return stored.layout
    }

    /// ``finishFlattened(_:)`` as a node's cache keeps it, with no element attached (for a caller that would only
    /// detach it again: attached and detached, the root's element was retained and released for nothing).
    package mutating func finishFlattenedStored(_ root: LayoutRef) -> StoredLayout {
        // One walk collects the nodes below the root, in spec order, with their exact positions in the root's
        // coordinates; then the storage, of exactly their count (the only allocation), is written in one loop.
        // (The walk is a static method with explicit arguments: as a nested function capturing the list, every
        // call paid for dynamic exclusivity checks. A count first and a second walk to place cost a third more.)
        finishOrder.removeAll()
        records.withUnsafeBufferPointer { source in
            edges.withUnsafeBufferPointer { edges in Self.collectNodes(root.index, .zero, source, edges, &finishOrder) }
        }
        let nodeCount = finishOrder.count
        let storage = LayoutStorage.make(count: nodeCount + 1, scale: grid.scale)
        records.withUnsafeBufferPointer { source in
            finishOrder.withUnsafeBufferPointer { nodes in
                storage.withUnsafeMutablePointers { header, out in
                    out.initialize(to: LayoutStorage.Record(
                        element: .detached, size: source[Int(root.index)].size, position: .zero, firstChild: 1,
                        childCount: Int32(truncatingIfNeeded: nodeCount), objectAddress: nil))
                    var arena: SpecArena?
                    for k in 0..<nodeCount {
                        let c = source[Int(nodes[k].record)]
                        let position = nodes[k].exact
                        (out + 1 + k).initialize(to: storedRecord(
                            c.source, arena: &arena, size: c.size,
                            position: Point(x: grid.ceil(position.x), y: grid.ceil(position.y)), firstChild: 0, childCount: 0,
                            withAddress: true))
                    }
                    header.pointee.count = nodeCount + 1
                    header.pointee.arena = arena
                }
            }
        }
        return StoredLayout(shared: SharedStorage(buffer: storage), index: 0)
    }

    /// Appends the nodes below record `index` to `nodes`, in spec order, each with its exact position in the
    /// root's coordinates (`origin` is the record's), not looking into nodes.
    private static func collectNodes(
        _ index: Int32, _ origin: Point, _ source: UnsafeBufferPointer<Record>, _ edges: UnsafeBufferPointer<Int32>,
        _ nodes: inout ScratchArray<FinishEntry>
    ) {
        let parent = source[Int(index)]
        for e in 0..<Int(parent.edgeCount) {
            let child = edges[Int(parent.edgeStart) + e]
            let c = source[Int(child)]
            let position = origin + c.position
            if c.isNode {
                nodes.append(FinishEntry(record: child, exact: position, rounded: .zero, relative: .zero))
            } else {
                collectNodes(child, position, source, edges, &nodes)
            }
        }
    }
}

/// What a flattened layout reports as its root's element when nothing attached one
/// (``LayoutBuilder/finishFlattened(_:)``).
public struct DetachedRoot: LayoutElement {
    public var style: LayoutStyle { LayoutStyle() }
    public var kindName: String { "detached" }

    public func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        builder.leaf(self, size: range.min)
    }
}

