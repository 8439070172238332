internal import CWeftThread

/// Counts of work done in a ``LayoutBuilder``: plain integers, since a builder belongs to one thread.
public struct LayoutCounters: Hashable, Sendable {
    /// Node layouts answered from a cache.
    public var cacheHits = 0
    /// Node layouts computed.
    public var cacheMisses = 0
    /// Layout specs asked for.
    public var specCalls = 0
    /// Leaves measured.
    public var measurements = 0

    public init() {}
}

/// A reference to a layout under construction in a ``LayoutBuilder``.
public struct LayoutRef: Hashable, Sendable {
    @usableFromInline let index: Int32

    @inlinable
    init(_ index: Int) {
        self.index = Int32(truncatingIfNeeded: index)
    }
}

/// The arena that layouts are computed into: one per computation, never shared between threads.
///
/// Elements append their layouts here; a stack that lays a child out twice leaves the first attempt behind as
/// garbage, which costs nothing until ``finish(_:)`` copies the reachable tree into a compact ``Layout``.
/// Reusing one builder for many computations (``reset()``) keeps its buffers, so a steady stream of layouts
/// allocates about once each: for the final tree.
///
/// Sizes are rounded up to the pixel grid when recorded, as Texture's `ASLayout` does. Positions are rounded
/// when the tree is finished: each layout's position in the root's coordinates is rounded up to the pixel
/// grid (Texture's flattening), so the finished tree's relative positions are differences of rounded
/// positions. A size with a dimension that is not a valid size (``Size/isValid``: NaN, negative, infinite or
/// ``Size/sizeLimit``, 1e7, and above) is recorded as 0x0, as Texture's `ASLayout` does in release builds; a position
/// that is not finite is recorded as zero.
public struct LayoutBuilder: ~Copyable {
    /// What a recorded layout belongs to: a spec of an arena (by index), an element with identity (a node,
    /// not retained: the caller keeps it alive while it is laid out), or any other element (by its index in
    /// ``elements``). Plain data, so that records copy as bytes.
    @usableFromInline
    enum Source {
        case spec(Unmanaged<SpecArena>, Int32)
        case object(UnownedObject)
        case element(Int32)
    }

    /// A reference to a ``LayoutObject`` that does not retain it.
    @usableFromInline
    struct UnownedObject {
        @usableFromInline unowned(unsafe) let object: any LayoutObject

        @inlinable
        init(_ object: any LayoutObject) {
            self.object = object
        }
    }

    @usableFromInline
    struct Record {
        @usableFromInline var source: Source
        @usableFromInline var size: Size
        @usableFromInline var position: Point
        @usableFromInline var edgeStart: Int32
        @usableFromInline var edgeCount: Int32
        @usableFromInline var isNode: Bool

        @inlinable
        init(source: Source, size: Size, edgeStart: Int32, edgeCount: Int32, isNode: Bool) {
            self.source = source
            self.size = size
            self.position = .zero
            self.edgeStart = edgeStart
            self.edgeCount = edgeCount
            self.isNode = isNode
        }
    }

    /// An entry of a layout being finished: its record, and where it lies, exactly and rounded in the root's
    /// coordinates, and rounded in its parent's (the difference of the two rounded positions).
    struct FinishEntry {
        var record: Int32
        var exact: Point
        var rounded: Point
        var relative: Point
    }

    /// The pixel grid sizes and positions are rounded to.
    public let grid: PixelGrid
    @usableFromInline var records = ScratchArray<Record>()
    @usableFromInline var edges = ScratchArray<Int32>()
    /// Elements recorded that are neither specs nor objects (value leaves of other kinds).
    @usableFromInline var elements = ScratchArray<any LayoutElement>()
    /// The order ``finish(_:)`` copies records in (reused).
    var finishOrder = ScratchArray<FinishEntry>()
    @usableFromInline var scratch = ScratchArray<LayoutRef>()
    var stackItems = ScratchArray<StackItem>()
    /// Elements (nodes) whose layout is being computed in this builder, outermost first (not retained: each
    /// is laid out by a caller that holds it).
    var active = ScratchArray<UnownedObject>()
    var stackLines = ScratchArray<StackLine>()
    /// The layouts stacks put off (``StackDeferral``), each stack's after its parent's.
    var stackDeferrals = ScratchArray<StackDeferral>()
    /// The arena value specs (``StackSpec``...) are added to when laid out; kept while no layout refers to it.
    var values: SpecArena?
    /// The arena the layers above build specs in while they lay them out (a node's `layoutSpecThatFits`),
    /// used as a stack: each takes a ``SpecArena/mark`` and rewinds to it when done.
    public var scratchSpecs: SpecArena {
        mutating get {
            if let arena = specStack { return arena }
            let arena = SpecArena()
            arena.isScratch = true
            specStack = arena
            return arena
        }
    }

    /// ``scratchSpecs``, unretained (this builder holds it): for a caller that uses it only while the builder
    /// lives and keeps it (a node laying out its spec: a retained arena was a retain and a release per node).
    @inlinable
    package mutating func unretainedScratchSpecs() -> Unmanaged<SpecArena> {
        if let arena = specStack { return Unmanaged.passUnretained(arena) }
        return Unmanaged.passUnretained(scratchSpecs)
    }

    @usableFromInline var specStack: SpecArena?
    /// A spec builder over ``scratchSpecs``, lent to each node's `layoutSpecThatFits` in turn
    /// (``takeSpecBuilder(over:)``): a builder made per node was a retain and a release of the arena each time.
    @usableFromInline var lentSpecs: SpecBuilder?

    /// A spec builder over `arena` (``scratchSpecs``, which the caller borrows from this builder): the one this
    /// builder keeps, moved out (nil there until it is given back), or a new one.
    @inlinable
    package mutating func takeSpecBuilder(over arena: SpecArena) -> SpecBuilder {
        if let specs = lentSpecs.take() { return specs }
        return SpecBuilder(arena: arena)
    }

    /// Keeps `specs` for the next ``takeSpecBuilder(over:)`` if it still builds in `arena` (one the node's code
    /// replaced with another builder is dropped).
    @inlinable
    package mutating func giveBack(_ specs: consuming SpecBuilder, over arena: SpecArena) {
        if specs.arena === arena { lentSpecs = specs }
    }

    /// Counts of the work done in this builder, for the layers above (nodes count cache hits and misses here,
    /// and publish the counts once per computation instead of once per event).
    public var counters = LayoutCounters()
    /// How many times one computation (until ``reset()``) may lay a stack's child out again, flexed or stretched,
    /// before it is refused as a ``LayoutError/Kind/limit``. A stack lays a flexible child out at its basis and
    /// again at its flexed size (Texture's algorithm), so stacks nested in flexible stacks double the work at
    /// each level: 2^depth layouts, a hang and gigabytes for a 2 KB document 22 levels deep. Ordinary trees stay
    /// far below (a cell lays out a few children again; a stack of 10,000 growing children 10,000).
    public var relayoutLimit = 1 << 20
    /// The children laid out again so far (counted against ``relayoutLimit``).
    var relayouts = 0
    /// How many layouts laying children out again may make in one computation beyond
    /// ``againPerLayout`` for each layout made otherwise, before the computation is refused as a
    /// ``LayoutError/Kind/limit``: laid out once, a tree makes about one layout per element, and laying children
    /// out again (flexed, stretched) should add a few more; stacks nested so that each level is asked for sizes
    /// no other was add twice as many per level. The limit bounds memory as well as time: a layout record is
    /// 64 bytes, so the default's 2^18 records are 16 MB, reached in a fraction of a second.
    public var againLimit = 1 << 18
    /// See ``againLimit``.
    public static let againPerLayout = 8
    /// Layouts recorded in this computation, those dropped by ``rewind(to:)`` included (the work done).
    @usableFromInline var recordsMade = 0
    /// Asked about every ``stopCheckInterval`` layouts made whether to give up (a deadline passed, a client
    /// left): `true` ends the computation with a ``LayoutError/Kind/limit`` error whose reason is
    /// ``stoppedReason``, naming the element reached. Set it before a computation (``reset()``, which
    /// ``Layout/compute(_:in:using:)`` calls first, arms it, and keeps it); nil (the default) costs one comparison
    /// per child laid out. It is called on the computing thread, so it must be safe to call from any thread.
    public var shouldStop: (@Sendable () -> Bool)?
    /// How many layouts are made between two calls of ``shouldStop``: some microseconds of work.
    public static let stopCheckInterval = 256
    /// The reason of the error a computation stopped by ``shouldStop`` throws.
    public static let stoppedReason = "layout stopped before the end (the caller gave up: a deadline or a cancellation)"
    /// ``recordsMade`` at which ``shouldStop`` is asked next (`Int.max`: never).
    @usableFromInline var nextStopCheck = Int.max
    /// How deep the child being laid out now is in children laid out again (0: in none).
    var relayoutDepth = 0
    /// ``recordsMade`` when the outermost child being laid out again began.
    var relayoutStart = 0
    /// Layouts made by finished outermost layouts again.
    var recordsMadeAgain = 0
    /// After this many children laid out again in one computation, the builder remembers each layout of a stack
    /// spec by its spec, range and parent size, and answers the same layout asked again from memory (a copy of its
    /// record, which shares the sublayouts): stacks nested in flexible stacks lay each nested stack out
    /// at a few sizes, each of which was laid out again below every layout above it, 2^depth layouts in all; so
    /// remembered, each (spec, size) is laid out once, and a chain of nested flexible stacks `depth` deep takes
    /// about depth^2 layouts. Ordinary trees, which lay out far fewer children again, never pay for the memo.
    /// (Identical inputs give the identical layout: the spec is a value, its arena unchanged while its epoch is.)
    /// In a layout pass, a remembered stack that places nodes is laid out again instead: the pass reads each
    /// node's latest reading, which laying the node out again makes the one its parent placed.
    public static let memoAfterRelayouts = 64
    /// ``memoAfterRelayouts`` for this builder (`Int.max`: never; for comparing with the layouts made without).
    package var memoAfter = LayoutBuilder.memoAfterRelayouts
    /// The most stack layouts the memo holds (about 9 MB). A computation that fills it asks for so many sizes that
    /// the memo saves little (nested stacks asked for a new size at every turn, each level's basis a different
    /// fraction of its parent's, gain nothing from it): it is then dropped for the rest of the computation, which
    /// is left to ``relayoutLimit`` as before.
    public static let memoCapacity = 1 << 16
    /// The memo of stack layouts (see ``memoAfterRelayouts``): nil until then, and once dropped. Emptied when
    /// records are dropped (``rewind(to:)``), whose indices it holds.
    var specMemo: [SpecMemoKey: SpecMemoEntry]?
    /// How many records of nodes were made in this computation (dropped ones too): whether a stack's layout placed
    /// a node is whether this moved meanwhile, known without looking through its records (every stack above
    /// looked through all of them again, depth x records in all).
    @usableFromInline var nodeRecords = 0

    /// A remembered layout: its record, and whether its records place a node (see ``memoAfterRelayouts``).
    struct SpecMemoEntry {
        let ref: LayoutRef
        let placesNodes: Bool
    }

    /// What a spec's layout is remembered by: the spec (its arena's identity, as of its epoch, and its index), the
    /// range and the parent size (compared by their bits: a NaN parent dimension, "not known yet", equals itself).
    struct SpecMemoKey: Hashable {
        let arena: UInt64
        let epoch: UInt32
        let index: Int32
        let minWidth, minHeight, maxWidth, maxHeight: UInt64
        let parentWidth, parentHeight: UInt64

        init(_ arena: SpecArena, _ index: Int32, _ range: SizeRange, _ parentSize: Size) {
            // (Its identity, not its address: an arena freed during the computation and another made at the same
            // address would have matched.)
            self.arena = arena.identity
            epoch = arena.epoch
            self.index = index
            (minWidth, minHeight) = (range.min.width.bitPattern, range.min.height.bitPattern)
            (maxWidth, maxHeight) = (range.max.width.bitPattern, range.max.height.bitPattern)
            (parentWidth, parentHeight) = (parentSize.width.bitPattern, parentSize.height.bitPattern)
        }
    }
    /// Where the node runtime notes what it read of the nodes it lays out in this builder during a layout pass:
    /// an unretained reference to WeftNodes' `PassNotes`, which the pass owns and outlives the computation (set
    /// only there; opaque to the layout core, which never reads it). Cleared by ``reset()``.
    package var passNotes: UnsafeMutableRawPointer?

    /// A builder for `scale` pixels per point (default 2).
    public init(scale: Double = 2) {
        grid = PixelGrid(scale: scale)
        records.reserveCapacity(64)
        edges.reserveCapacity(64)
        weft_thread_prepare_stack_guard()
    }

    /// Forgets every layout recorded, keeping the buffers for the next computation.
    public mutating func reset() {
        records.truncate(to: 0)
        edges.truncate(to: 0)
        elements.truncate(to: 0)
        scratch.truncate(to: 0)
        stackItems.truncate(to: 0)
        active.truncate(to: 0)
        stackLines.truncate(to: 0)
        stackDeferrals.truncate(to: 0)
        counters = LayoutCounters()
        relayouts = 0
        recordsMade = 0
        nextStopCheck = shouldStop == nil ? .max : Self.stopCheckInterval
        relayoutDepth = 0
        relayoutStart = 0
        recordsMadeAgain = 0
        specMemo = nil
        nodeRecords = 0
        passNotes = nil
        weft_thread_prepare_stack_guard()
        // A finished layout of value specs refers to their arena: then the next ones go into a new one.
        if values != nil {
            if isKnownUniquelyReferenced(&values!) { values?.reset() } else { values = nil }
        }
    }

    /// A point to return to with ``rewind(to:)``: layouts recorded after it can be dropped together.
    public struct Mark: Sendable {
        let records: Int
        let edges: Int
    }

    public var mark: Mark { Mark(records: records.count, edges: edges.count) }

    /// Drops every layout recorded after `mark` (after they were copied out with ``finish(_:)``).
    public mutating func rewind(to mark: Mark) {
        records.truncate(to: mark.records)
        edges.truncate(to: mark.edges)
        if specMemo != nil { specMemo = [:] }
    }

    // MARK: Cycles

    /// Registers `object` as being laid out, refusing a cycle: an element whose layout needs itself.
    ///
    /// Elements that compute their layout from other elements they produce on demand (nodes, from their
    /// layout spec) call this before and ``leave(_:)`` after, so that a node whose spec contains the node
    /// itself (directly or through other nodes) is an error instead of endless recursion.
    ///
    /// It also refuses to nest deeper when the thread's stack is nearly used up (a ``LayoutError/Kind/limit``).
    public mutating func enter(_ object: any LayoutObject) throws(LayoutError) {
        if _slowPath(weft_thread_stack_is_low()) { throw Self.stackExhausted() }
        if _slowPath(recordsMade >= nextStopCheck) { try checkShouldStop() }
        for i in 0..<active.count where active[i].object === object {
            let names = (active.unsafeElements.map(\.object.displayName) + [object.displayName]).joined(separator: " > ")
            throw LayoutError("cycle: \(object.displayName) contains itself (\(names))")
        }
        active.append(UnownedObject(object))
    }

    /// Asks ``shouldStop`` (its interval is up) and throws if it says to stop.
    @inline(never) @usableFromInline
    mutating func checkShouldStop() throws(LayoutError) {
        nextStopCheck = recordsMade &+ Self.stopCheckInterval
        if let shouldStop, shouldStop() { throw LayoutError(Self.stoppedReason, kind: .limit) }
    }

    /// Unregisters the object registered last with ``enter(_:)``.
    public mutating func leave(_ object: any LayoutObject) {
        if let last = active.last, last.object === object { active.removeLast() }
    }

    // MARK: Recording

    @inlinable
    mutating func record(_ source: Source, isNode: Bool, size: Size, edgeStart: Int32, edgeCount: Int32) -> LayoutRef {
        nodeRecords &+= isNode ? 1 : 0
        recordsMade &+= 1
        records.append(Record(source: source, size: sanitized(size), edgeStart: edgeStart, edgeCount: edgeCount, isNode: isNode))
        return LayoutRef(records.count - 1)
    }

    @usableFromInline
    mutating func source(_ element: any LayoutElement) -> Source {
        if let object = element as? any LayoutObject { return .object(UnownedObject(object)) }
        elements.append(element)
        return .element(Int32(truncatingIfNeeded: elements.count - 1))
    }

    /// Records a layout without sublayouts.
    @inlinable
    public mutating func leaf(_ element: any LayoutElement, size: Size) -> LayoutRef {
        record(source(element), isNode: element.isNode, size: size,
               edgeStart: Int32(truncatingIfNeeded: edges.count), edgeCount: 0)
    }

    /// Records a layout without sublayouts for an element with identity (not retained while recorded).
    @inlinable
    public mutating func leaf(object: any LayoutObject, size: Size) -> LayoutRef {
        record(.object(UnownedObject(object)), isNode: object.isNode, size: size,
               edgeStart: Int32(truncatingIfNeeded: edges.count), edgeCount: 0)
    }

    /// Records a layout without sublayouts for a node whose `size` is already on this builder's pixel grid (a
    /// size its cache holds): not rounded again.
    @inlinable
    package mutating func leaf(node: any LayoutObject, roundedSize size: Size) -> LayoutRef {
        nodeRecords &+= 1
        recordsMade &+= 1
        records.append(Record(source: .object(UnownedObject(node)), size: size,
                              edgeStart: Int32(truncatingIfNeeded: edges.count), edgeCount: 0, isNode: true))
        return LayoutRef(records.count - 1)
    }

    /// Records a layout with one sublayout.
    @inlinable
    public mutating func layout(_ element: any LayoutElement, size: Size, sublayout: LayoutRef) -> LayoutRef {
        edges.append(sublayout.index)
        return record(source(element), isNode: element.isNode, size: size,
                      edgeStart: Int32(truncatingIfNeeded: edges.count - 1), edgeCount: 1)
    }

    /// Records a layout with one sublayout for an element with identity (not retained while recorded).
    @inlinable
    public mutating func layout(object: any LayoutObject, size: Size, sublayout: LayoutRef) -> LayoutRef {
        edges.append(sublayout.index)
        return record(.object(UnownedObject(object)), isNode: object.isNode, size: size,
                      edgeStart: Int32(truncatingIfNeeded: edges.count - 1), edgeCount: 1)
    }

    /// Records a layout with two sublayouts, in this order.
    public mutating func layout(
        _ element: any LayoutElement, size: Size, sublayouts first: LayoutRef, _ second: LayoutRef
    ) -> LayoutRef {
        edges.append(first.index)
        edges.append(second.index)
        return record(source(element), isNode: element.isNode, size: size,
                      edgeStart: Int32(truncatingIfNeeded: edges.count - 2), edgeCount: 2)
    }

    /// Records a layout whose sublayouts are `sublayouts`, in order.
    public mutating func layout(
        _ element: any LayoutElement, size: Size, sublayouts: some Collection<LayoutRef>
    ) -> LayoutRef {
        let edgeStart = Int32(truncatingIfNeeded: edges.count)
        for ref in sublayouts { edges.append(ref.index) }
        return record(source(element), isNode: element.isNode, size: size, edgeStart: edgeStart,
                      edgeCount: Int32(truncatingIfNeeded: sublayouts.count))
    }

    /// Records the layout of spec `index` of `arena` with the given sublayouts (one, two, or the scratch
    /// references from `start`, which are popped).
    @inlinable
    mutating func spec(_ arena: SpecArena, _ index: Int32, size: Size, sublayout: LayoutRef) -> LayoutRef {
        edges.append(sublayout.index)
        return record(.spec(Unmanaged.passUnretained(arena), index), isNode: false, size: size,
                      edgeStart: Int32(truncatingIfNeeded: edges.count - 1), edgeCount: 1)
    }

    @inlinable
    mutating func spec(_ arena: SpecArena, _ index: Int32, size: Size, sublayouts first: LayoutRef, _ second: LayoutRef) -> LayoutRef {
        edges.append(first.index)
        edges.append(second.index)
        return record(.spec(Unmanaged.passUnretained(arena), index), isNode: false, size: size,
                      edgeStart: Int32(truncatingIfNeeded: edges.count - 2), edgeCount: 2)
    }

    @inlinable
    mutating func spec(_ arena: SpecArena, _ index: Int32, size: Size, scratchFrom start: Int) -> LayoutRef {
        let edgeStart = Int32(truncatingIfNeeded: edges.count)
        let count = scratch.count - start
        for i in start..<scratch.count { edges.append(scratch[i].index) }
        scratch.truncate(to: start)
        return record(.spec(Unmanaged.passUnretained(arena), index), isNode: false, size: size,
                      edgeStart: edgeStart, edgeCount: Int32(truncatingIfNeeded: count))
    }

    @usableFromInline
    mutating func pushScratch(_ ref: LayoutRef) {
        scratch.append(ref)
    }

    /// `size` as a layout would record it: rounded up to the pixel grid, or 0x0 if it is not a valid size
    /// (``Size/isValid``).
    @inlinable
    public func sanitizedSize(_ size: Size) -> Size {
        sanitized(size)
    }

    @inlinable @inline(__always)
    func sanitized(_ size: Size) -> Size {
        grid.sanitized(size)
    }

    // MARK: Reading and placing

    /// The (pixel-rounded) size of a recorded layout.
    @inlinable
    public func size(of ref: LayoutRef) -> Size {
        records[Int(ref.index)].size
    }

    /// The position of a recorded layout in its parent's coordinates.
    @inlinable
    public func position(of ref: LayoutRef) -> Point {
        records[Int(ref.index)].position
    }

    /// Places a recorded layout in its parent's coordinates.
    ///
    /// Positions are kept exact here; ``finish(_:)`` rounds each layout's position in the root's coordinates
    /// up to the pixel grid, as Texture does when it flattens a layout. A position that is not finite is
    /// recorded as zero.
    @inlinable
    public mutating func setPosition(_ ref: LayoutRef, _ point: Point) {
        records[Int(ref.index)].position = Point(
            x: point.x.isFinite ? point.x : 0,
            y: point.y.isFinite ? point.y : 0)
    }

    /// The element a recorded layout belongs to.
    public func element(of ref: LayoutRef) -> any LayoutElement {
        element(records[Int(ref.index)].source)
    }

    /// The element of a source, as a value (a spec of an arena as a ``Spec``, which retains the arena).
    @usableFromInline
    func element(_ source: Source) -> any LayoutElement {
        switch source {
        case .spec(let arena, let index): return Spec(arena: arena.takeUnretainedValue(), index: index)
        case .object(let unowned): return unowned.object
        case .element(let index): return elements[Int(index)]
        }
    }

    /// How an error path names sublayout `index` of a recorded layout.
    func placeOfSublayout(_ source: Source, _ index: Int) -> String {
        switch source {
        case .spec(let arena, let spec): return arena.takeUnretainedValue().record(spec).kind.place(ofChild: index)
        case .object(let unowned): return unowned.object.placeOfSublayout(index)
        case .element(let element): return elements[Int(element)].placeOfSublayout(index)
        }
    }

    // MARK: Style resolution

    /// `range` narrowed by `style` (``LayoutStyle/narrowed(_:parentSize:)``), after checking the style.
    ///
    /// Throws if the style holds a value that cannot be laid out.
    @inlinable
    public func resolve(_ style: LayoutStyle, range: SizeRange, parentSize: Size) throws(LayoutError) -> SizeRange {
        try style.validate()
        return style.narrowed(range, parentSize: parentSize)
    }
}
