import CWeftThread
import WeftLayout

extension Node {
    /// Lays the node out as an element of a parent's spec: the node's range is narrowed by its style, its
    /// layout is taken from its cache or computed (its spec laid out, or the leaf measured), and the parent
    /// gets one layout of the node's size. MAY run on any thread.
    public func layout(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> LayoutRef {
        let size = try cachedOrComputedSize(range, parentSize: parentSize, in: &builder)
        // (An entry's size is on the grid of the builder's scale: entries are looked up by scale.)
        return builder.leaf(node: self, roundedSize: size)
    }

    /// The node's own layout for `range`: the node at the root and, as its sublayouts, the nodes of its
    /// flattened spec in the node's coordinates (Texture's calculated layout; specs are not kept). A leaf's
    /// layout has no sublayouts. Computed at most once per size range and version: later calls hit the cache.
    /// Rounded to the pixel grid of the node's ``context``. MAY run on any thread.
    public func layoutThatFits(_ range: SizeRange) throws(LayoutError) -> Layout {
        // Asked again for the range it last answered, with no input changed since: one atomic load, a borrow
        // of the published record and a compare, no lock.
        let generation = inputsGeneration.load(ordering: .acquiring)
        let published = rootRecord.withCurrent { $0?.answer(range, generation: generation, node: self) }
        if let published { return published }
        return try layoutThatFits(range, generation: generation)
    }

    /// ``layoutThatFits(_:)`` when the published record does not answer: out of line, so that the repeat's path
    /// above saves and restores only the few registers it uses.
    @inline(never)
    private func layoutThatFits(_ range: SizeRange, generation: UInt64) throws(LayoutError) -> Layout {
        // Otherwise the node's inputs from its snapshot, and its cached entry (which is published for next time)
        // or one computed from those inputs. A node with no entry of its current version stored computes without
        // taking the lock at all.
        let (version, context, narrowed, problem) = rootInputs(range)
        let entry: LayoutCache.Entry
        switch lookup(narrowed, problem: problem, scale: context.scale, version: version) {
        case .hit(let hit):
            context.statistics.bump(.cacheHits)
            entry = hit
        case .miss(let inputs):
            entry = try computeRootEntry(range, context: context, inputs: inputs)
        }
        let layout: StoredLayout
        if let own = entry.layout {
            // Checked on a hit too: a layout pass that refused the node stored its entry before it checked.
            if own.sublayoutCount > 1 { try refuseNodePlacedTwice(in: own, range: entry.range, scale: context.scale) }
            try refuseNonSubnodes(in: own, range: entry.range, scale: context.scale)
            layout = own
        } else {
            layout = try leafLayout(size: entry.size, scale: context.scale)
        }
        // Published for the repeats, computed or cached alike, at the generation loaded before the inputs were
        // read (if an input changed meanwhile, the generation no longer matches and the record is never used).
        rootRecord.publish(RootRecord(range: range, generation: generation, layout: layout, statistics: context.statistics))
        return layout.attaching(self)
    }

    /// Refuses the node's own `layout` (for `range`, narrowed) where it places a node twice, with the error a
    /// layout pass gives (``HierarchyError/nodeInTwoPlaces(node:first:second:)``): a node has one place.
    @inline(never)
    private func refuseNodePlacedTwice(in layout: StoredLayout, range: SizeRange, scale: Double) throws(LayoutError) {
        guard let child = Self.nodePlacedTwice(in: layout) else { return }
        let error = HierarchyError.nodeInTwoPlaces(
            node: child.displayName, first: place(of: child, range: range, scale: scale, occurrence: 0),
            second: place(of: child, range: range, scale: scale, occurrence: 1))
        throw LayoutError(error.description)
    }

    /// The first node a flattened layout places twice (the one whose second placement comes first), or nil. A few
    /// sublayouts are compared pair by pair (no allocation), more through a set of their identities.
    static func nodePlacedTwice(in layout: StoredLayout) -> Node? {
        let count = layout.sublayoutCount
        // (The layout holds its objects while it is checked.)
        func identity(_ k: Int) -> ObjectIdentifier? {
            layout.unretainedSublayoutObject(k).map { ObjectIdentifier($0.takeUnretainedValue()) }
        }
        func node(_ k: Int) -> Node? { layout.unretainedSublayoutObject(k)?.takeUnretainedValue() as? Node }
        if count <= 32 {
            for i in 1..<count {
                guard let object = identity(i) else { continue }
                for j in 0..<i where identity(j) == object {
                    if let found = node(i) { return found }
                    break
                }
            }
            return nil
        }
        var seen = Set<ObjectIdentifier>(minimumCapacity: count)
        for k in 0..<count {
            guard let object = identity(k), !seen.insert(object).inserted else { continue }
            if let found = node(k) { return found }
        }
        return nil
    }

    /// A leaf's own layout: the node alone, of its size (detached: attach the node to hand it out).
    private func leafLayout(size: Size, scale: Double) throws(LayoutError) -> StoredLayout {
        BuilderPool.withBuilder(scale: scale) { builder in builder.finishFlattenedStored(builder.leaf(object: self, size: size)) }
    }

    /// What a layout pass reads of its root: its context; for `range` as a root (the parent size is the range's
    /// max) its cached entry or what computing one needs; and, read with the entry when it takes the node's lock,
    /// whether it manages its subnodes and its subnodes if it does (nil when no lock was needed: the root then
    /// notes them when its computed entry is stored).
    func rootLookup(_ range: SizeRange) -> (context: LayoutContext, found: CacheLookup, reading: (managed: Bool, subnodes: NodeList)?) {
        let (version, context, narrowed, problem) = rootInputs(range)
        if storedNothing(of: version) {
            return (context, .miss(LayoutInputs(range: narrowed, version: version, styleProblem: problem)), nil)
        }
        let state = guarded.lockedPointer()
        defer { guarded.unlock() }
        return (context, Self.cachedOrInputs(state, narrowed, problem: problem, scale: context.scale, version: version),
                Self.walkReading(state))
    }

    /// The version, then (see `lookup`) from the snapshot: the context, `range` as a root (the parent size is the
    /// range's max) narrowed by the style, and the style's problem.
    @inline(__always)
    private func rootInputs(_ range: SizeRange) -> (version: UInt64, context: LayoutContext, narrowed: SizeRange, problem: StyleError?) {
        let version = currentVersion.load(ordering: .acquiring)
        let (context, narrowed, problem) = readInputs { inputs in
            (inputs.pointee.context, Snapshot.narrowed(inputs, range, parentSize: range.max), inputs.pointee.styleProblem)
        }
        return (version, context, narrowed, problem)
    }

    /// Whether no entry of `version` was ever stored: a lookup for it misses, known without the lock.
    @inline(__always)
    private func storedNothing(of version: UInt64) -> Bool {
        storedVersion.load(ordering: .acquiring) != version
    }

    /// The cache entry for `range` as a root (the parent size is the range's max), computed if missing; the
    /// work is counted in `context`'s statistics.
    func rootEntry(_ range: SizeRange, context: LayoutContext) throws(LayoutError) -> LayoutCache.Entry {
        let (version, _, narrowed, problem) = rootInputs(range)
        return try rootEntry(range, context: context, lookup(narrowed, problem: problem, scale: context.scale, version: version))
    }

    /// The cached entry for `narrowed` (a range already narrowed by the style, whose problem is `problem`) at
    /// `scale` and `version`, or the inputs to compute one from. A node with no entry of that version stored
    /// answers without its lock.
    ///
    /// `version` MUST be loaded before the snapshot the range and problem come from is read: a writer publishes
    /// a snapshot before it bumps the version, so the inputs are then at least as new as the version (an older
    /// version only makes an entry that is never used), never older (an old style's entry under the new version).
    @inline(__always)
    func lookup(_ narrowed: SizeRange, problem: StyleError?, scale: Double, version: UInt64) -> CacheLookup {
        if storedNothing(of: version) {
            return .miss(LayoutInputs(range: narrowed, version: version, styleProblem: problem))
        }
        let state = guarded.lockedPointer()
        defer { guarded.unlock() }
        return Self.cachedOrInputs(state, narrowed, problem: problem, scale: scale, version: version)
    }

    /// The cached entry for `narrowed` at `scale` and `version`, or the inputs to compute one from, read in place
    /// under the node's lock.
    @inline(__always)
    private static func cachedOrInputs(
        _ state: UnsafeMutablePointer<State>, _ narrowed: SizeRange, problem: StyleError?, scale: Double, version: UInt64
    ) -> CacheLookup {
        if let hit = state.pointee.cache.lookup(narrowed, scale: scale, version: version) { return .hit(hit) }
        return .miss(LayoutInputs(range: narrowed, version: version, styleProblem: problem))
    }

    /// The entry `found` holds, or the one computed from the inputs it holds (and stored).
    /// A layout pass passes its `notes`: every node laid out meanwhile notes its reading there.
    /// With `notingRoot`, the root notes its own reading too when its entry is stored.
    func rootEntry(
        _ range: SizeRange, context: LayoutContext, _ found: CacheLookup, notes: PassNotes? = nil, notingRoot: Bool = false
    ) throws(LayoutError) -> LayoutCache.Entry {
        switch found {
        case .hit(let hit):
            context.statistics.bump(.cacheHits)
            return hit
        case .miss(let inputs):
            return try computeRootEntry(range, context: context, inputs: inputs, notes: notes, notingRoot: notingRoot)
        }
    }

    /// The entry for `range` as a root computed from one reading of the node's inputs (and stored); the work is
    /// counted in `context`'s statistics.
    func computeRootEntry(
        _ range: SizeRange, context: LayoutContext, inputs: LayoutInputs, notes: PassNotes? = nil, notingRoot: Bool = false
    ) throws(LayoutError) -> LayoutCache.Entry {
        let scale = context.scale
        if let problem = range.problem { throw LayoutError(problem, path: "sizeRange") }
        if let problem = PixelGrid.problem(scale: scale) { throw LayoutError(problem, path: "context.scale") }
        // A node whose spec asks for its own layout, or an ancestor's, would compute again in a builder of its own,
        // forever: refused as a cycle.
        return try BuilderPool.withBuilder(scale: scale, computing: self, refusing: { chain in
            LayoutError("cycle: \(self.displayName) asks for its own layout while it is being laid out (\(chain.map(\.displayName).joined(separator: " > ")))")
        }) { builder throws(LayoutError) in
            builder.passNotes = notes.map { Unmanaged.passUnretained($0).toOpaque() }
            let result: Result<LayoutCache.Entry, LayoutError>
            do throws(LayoutError) {
                result = .success(try computeLayout(range, parentSize: range.max, inputs: inputs, in: &builder, noting: notingRoot))
            } catch {
                result = .failure(error.within("root"))
            }
            context.statistics.add(builder.counters)
            return try result.get()
        }
    }

    /// What a layout pass reads of a node its parent placed at `size`, at once: the cached entry of that size
    /// for the current version, whether it manages its subnodes, and its subnodes if it does.
    ///
    /// The entry is nil when the cache has no layout of that size for the current version: the node changed
    /// after its parent laid it out (or the entry was evicted), so the parent's layout may be stale; the pass
    /// then computes one for exactly that size (as Texture does) and asks for another pass.
    @inline(__always)
    func applyingReading(size: Size, scale: Double) -> NodeReading {
        let state = guarded.lockedPointer()
        defer { guarded.unlock() }
        let (managed, subnodes) = Self.walkReading(state)
        return NodeReading(entry: state.pointee.cache.lookup(size: size, scale: scale, version: state.pointee.version),
                           managed: managed, subnodes: subnodes)
    }

    /// What a layout pass's walk needs of a node besides its entry, read in place under its lock: whether it
    /// manages its subnodes, and its subnodes if it does.
    @inline(__always)
    private static func walkReading(_ state: UnsafeMutablePointer<State>) -> (managed: Bool, subnodes: NodeList) {
        let managed = state.pointee.automaticallyManagesSubnodes
        guard managed else { return (false, NodeList()) }
        // (The slot read directly: through the `placement` accessor, the whole state was copied.)
        return (true, state.pointee.placementSlot == 0 ? state.pointee.placement0.subnodes : state.pointee.placement1.subnodes)
    }

    /// What applying a pass reads of a node's placement, with no lock: its subnodes if asked, its supernode's
    /// identity and its applied size.
    @inline(__always)
    func hierarchyReading(subnodes: Bool) -> (subnodes: NodeList, supernode: ObjectIdentifier?, appliedSize: Size) {
        readPlacement { placement in
            (subnodes ? placement.pointee.subnodes : NodeList(), placement.pointee.supernodeID, placement.pointee.appliedSize)
        }
    }

    /// Releases the lock taken by `guarded.lockedPointer()`; in a layout pass (`notes`), first reads what the
    /// pass's walk needs of this node, to note it with an entry's `key` and `layout` once the lock is released.
    @inline(__always)
    private func unlockNoting(
        _ state: UnsafeMutablePointer<State>, key: LayoutCache.Key, layout: consuming StoredLayout?, in notes: UnsafeMutableRawPointer?
    ) {
        guard let notes else {
            guarded.unlock()
            return
        }
        let (managed, subnodes) = Self.walkReading(state)
        guarded.unlock()
        PassNotes.note(in: notes, self, key: key, layout: layout, managed: managed, subnodes: subnodes)
    }

    /// The size of the node's entry for `range` in a parent of `parentSize`, from its cache or computed (and
    /// stored). (Only the size: the entry returned whole was copied and destroyed on the way, a call each.)
    func cachedOrComputedSize(_ range: SizeRange, parentSize: Size, in builder: inout LayoutBuilder) throws(LayoutError) -> Size {
        // The node's inputs from its snapshot (no lock), then the entry: none stored of the current version, a
        // known miss (no lock, and no note to look for: a pass notes an entry when it stores it); in a layout
        // pass, one this pass noted moments ago (a stack measuring a child twice); else one read of the cache
        // under the lock.
        // (In place, not through `CacheLookup`: an enum with a layout in one case and an error in the other is
        // copied by the runtime's value witnesses. Pinned by the cold node-tree rows, Benchmarks 1.)
        let scale = builder.grid.scale
        // The version first (see `lookup`).
        let version = currentVersion.load(ordering: .acquiring)
        let (narrowed, problem) = readInputs { inputs in (Snapshot.narrowed(inputs, range, parentSize: parentSize), inputs.pointee.styleProblem) }
        if storedNothing(of: version) {
            let inputs = LayoutInputs(range: narrowed, version: version, styleProblem: problem)
            return try computeLayout(range, parentSize: parentSize, inputs: inputs, in: &builder, noting: true, as: Size.self)
        }
        if let notes = builder.passNotes, let noted = PassNotes.recentEntry(in: notes, self, narrowed, scale: scale, version: version) {
            builder.counters.cacheHits += 1
            return noted.size
        }
        let state = guarded.lockedPointer()
        if let hit = state.pointee.cache.lookup(narrowed, scale: scale, version: version) {
            unlockNoting(state, key: hit.key, layout: hit.layout, in: builder.passNotes)
            builder.counters.cacheHits += 1
            return hit.size
        }
        guarded.unlock()
        let inputs = LayoutInputs(range: narrowed, version: version, styleProblem: problem)
        return try computeLayout(range, parentSize: parentSize, inputs: inputs, in: &builder, noting: true, as: Size.self)
    }

    /// Computes the layout for one reading of the node's inputs and stores it; in a layout pass, a node laid
    /// out by its parent (`noting`) notes its reading in the pass's notes (a pass's root is read by the pass).
    func computeLayout(
        _ range: SizeRange, parentSize: Size, inputs: LayoutInputs, in builder: inout LayoutBuilder, noting: Bool
    ) throws(LayoutError) -> LayoutCache.Entry {
        try computeLayout(range, parentSize: parentSize, inputs: inputs, in: &builder, noting: noting, as: LayoutCache.Entry.self)
    }

    /// ``computeLayout(_:parentSize:inputs:in:noting:)``, handing back the entry or only its size (`Result`: a node
    /// laid out by its parent needs no more, and its entry then goes into the cache without a copy).
    private func computeLayout<Result: ComputedEntryResult>(
        _ range: SizeRange, parentSize: Size, inputs: LayoutInputs, in builder: inout LayoutBuilder, noting: Bool,
        as: Result.Type
    ) throws(LayoutError) -> Result {
        builder.counters.cacheMisses += 1
        let scale = builder.grid.scale
        if let problem = inputs.styleProblem { throw problem.error }
        let (resolved, version) = (inputs.range, inputs.version)
        builder.counters.specCalls += 1
        // The builder's spec arena, as a stack: this node's specs go on top and come off when it is laid out.
        // (Borrowed as guaranteed, with no retain: the builder keeps it for the whole call. Taken unretained
        // instead, it was retained and released around the call, which gets the builder inout.) The outcome is
        // carried out of the closure: the runtime's guaranteed-reference helper does not pass a typed error.
        let outcome = builder.unretainedScratchSpecs()._withUnsafeGuaranteedRef { arena -> Swift.Result<Result, LayoutError> in
            do throws(LayoutError) {
                return .success(try computeLayout(resolved, version: version, scale: scale, arena: arena, in: &builder,
                                                  noting: noting, as: Result.self))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// ``computeLayout(_:parentSize:inputs:in:noting:)`` once the inputs are checked, with the builder's spec
    /// `arena` (borrowed: the builder holds it).
    private func computeLayout<Result: ComputedEntryResult>(
        _ resolved: SizeRange, version: UInt64, scale: Double, arena: SpecArena, in builder: inout LayoutBuilder, noting: Bool,
        as: Result.Type
    ) throws(LayoutError) -> Result {
        let specMark = arena.mark
        defer { arena.rewind(to: specMark) }
        let (part, ownArena) = buildSpec(resolved, arena: arena, in: &builder)
        // (Switched over, consumed: `if let` destroys a leaf's nil through the existential's value witness.
        // Pinned by the cold node-tree rows, Benchmarks 1.)
        switch consume part {
        case .some(let spec):
            try builder.enter(self)
            defer { builder.leave(self) }
            let mark = builder.mark
            let specRef: LayoutRef
            do {
                // (Two calls, not one with `ownArena ?? arena`: that retained the arena for every node.)
                if let ownArena {
                    specRef = try builder.layoutSpecChild(ownArena, spec.specChild(in: ownArena), resolved, parentSize: resolved.max)
                } else {
                    specRef = try builder.layoutSpecChild(arena, spec.specChild(in: arena), resolved, parentSize: resolved.max)
                }
            } catch {
                throw error.within("layoutSpec")
            }
            let size = builder.size(of: specRef)
            // Cache what Texture caches: the node and its flattened subnodes, not the spec (which can go now),
            // and not the node itself (detached: a layout that held the node would keep it alive forever).
            let layout = builder.finishFlattenedStored(builder.layout(object: self, size: size, sublayout: specRef))
            builder.rewind(to: mark)
            return store(LayoutCache.Entry(range: resolved, scale: scale, version: version, size: layout.size, layout: layout),
                         noting: noting ? builder.passNotes : nil)
        case .none:
            builder.counters.measurements += 1
            let measured: Size
            if let shouldStop = builder.shouldStop {
                measured = try sizeThatFits(resolved.max, stoppingWith: shouldStop)
            } else {
                measured = try sizeThatFits(resolved.max)
            }
            // (Through the grid: the builder's method was not inlined here, and copied the builder to call.)
            let size = builder.grid.sanitized(resolved.clamp(measured))
            // (Stored from each branch: an entry made in either and stored after both was copied whole, where a
            // leaf's, with no layout, is plain values.)
            return store(LayoutCache.Entry(range: resolved, scale: scale, version: version, size: size, layout: nil),
                         noting: noting ? builder.passNotes : nil)
        }
    }

    /// The node's spec for `resolved` (`layoutSpecThatFits` with the builder lent over `arena`), and the arena it
    /// is laid out in when that is not `arena`: if the node's code replaced the builder, the new builder's (kept
    /// for the layout), unless the spec is one of the lent arena made before. The caller drops what was added to
    /// `arena` once it is done with the spec.
    @inline(__always)
    func buildSpec(
        _ resolved: SizeRange, arena: SpecArena, in builder: inout LayoutBuilder
    ) -> (part: (any SpecPart)?, ownArena: SpecArena?) {
        var specs = builder.takeSpecBuilder(over: arena)
        let part = layoutSpecThatFits(resolved, in: &specs)
        var ownArena: SpecArena?
        if specs.arena !== arena { ownArena = Self.arena(of: part, lent: arena, builder: specs.arena) }
        builder.giveBack(consume specs, over: arena)
        return (part, ownArena)
    }

    /// Where the node's code replaced the builder over the `lent` arena with `builder`: the arena to lay `part`
    /// out in, nil for the lent one (a reference to one of its specs made before).
    @inline(never)
    private static func arena(of part: borrowing (any SpecPart)?, lent: SpecArena, builder: SpecArena) -> SpecArena? {
        if let reference = (copy part) as? SpecRef, reference.isSpec(of: lent) { return nil }
        return builder
    }

    /// Stores `entry` in the cache (a newer version may exist by now; the entry is then simply never looked up)
    /// and, in a layout pass (`notes`), notes the node's reading; returns the entry or its size.
    @inline(__always)
    private func store<Result: ComputedEntryResult>(_ entry: consuming LayoutCache.Entry, noting notes: UnsafeMutableRawPointer?) -> Result {
        let result = Result(entry)
        // What the note keeps, taken before the entry goes into the cache (moved there, not copied).
        let (key, layout) = (entry.key, notes == nil ? nil : entry.layout)
        let state = guarded.lockedPointer()
        // (The layout the entry replaces is released after the lock: it may hold a node's last reference.)
        let replaced = state.pointee.cache.store(entry)
        if key.version > storedVersion.load(ordering: .relaxed) { storedVersion.store(key.version, ordering: .releasing) }
        unlockNoting(state, key: key, layout: layout, in: notes)
        withExtendedLifetime(replaced) {}
        return result
    }

    /// "the layout of PhotoCellNode "c" at layoutSpec.children[1]": where `child` occurs in the node's layout
    /// for `range` (already narrowed by its style; the first or a later occurrence). Nodes cache flattened
    /// layouts, so this lays the spec out again: it only runs to word an error.
    func place(of child: Node, range: SizeRange, scale: Double, occurrence: Int = 0) -> String {
        let places = specLayout(range, scale: scale)?.flattenedWithPlaces()
            .filter { ($0.entry.element as? Node) === child }.map(\.place) ?? []
        let place = occurrence < places.count ? places[occurrence] : places.last ?? "its layout spec"
        return "the layout of \(displayName) at \(place)"
    }

    /// The node's full layout for `range` (already narrowed by its style): the node at the root and its spec's
    /// whole layout below, laid out afresh (not cached). For error messages and debugging.
    func specLayout(_ range: SizeRange, scale: Double) -> Layout? {
        // A new arena, which the layout keeps (its specs are part of it), that a spec finished in is copied out of
        // as out of the one a layout lends (so that the node's code behaves as it did there).
        let lent = SpecArena()
        lent.isScratch = true
        var specs = SpecBuilder(arena: lent)
        guard let spec = layoutSpecThatFits(range, in: &specs) else { return nil }
        let arena = specs.arena === lent ? lent : Self.arena(of: spec, lent: lent, builder: specs.arena) ?? lent
        var builder = LayoutBuilder(scale: scale)
        let root = spec.specChild(in: arena)
        guard let specRef = try? builder.layoutSpecChild(arena, root, range, parentSize: range.max) else { return nil }
        return builder.finish(builder.layout(object: self, size: builder.size(of: specRef), sublayout: specRef))
    }
}

/// What computing a node's layout hands back: its whole entry, or only its size.
protocol ComputedEntryResult {
    init(_ entry: borrowing LayoutCache.Entry)
}

extension LayoutCache.Entry: ComputedEntryResult {
    init(_ entry: borrowing LayoutCache.Entry) {
        self = copy entry
    }
}

extension Size: ComputedEntryResult {
    init(_ entry: borrowing LayoutCache.Entry) {
        self = entry.size
    }
}

/// What a node's layout is computed from, read at once: the range narrowed by its style, its version, and what
/// is wrong with its style (checked once per style, not once per layout).
struct LayoutInputs {
    let range: SizeRange
    let version: UInt64
    let styleProblem: StyleError?
}

/// The error of a style that cannot be laid out, boxed: nil (the common case) is one word to copy, where a
/// `LayoutError?` was five. (Not WeftLayout's `StyleProblem`, a spec arena's record of the same thing as text.)
final class StyleError: Sendable {
    let error: LayoutError

    init(_ error: LayoutError) {
        self.error = error
    }
}

/// A cache lookup's answer: the entry, or the inputs to compute one from (read in the same critical section).
enum CacheLookup {
    case hit(LayoutCache.Entry)
    case miss(LayoutInputs)
}

/// What ``Node/layoutThatFits(_:)`` answered for a root range, published for lock-free repeats: valid while the
/// node's inputs are at `generation`. The layout is detached (it does not hold the node, which holds this).
final class RootRecord: Sendable {
    let range: SizeRange
    let generation: UInt64
    let layout: StoredLayout
    let statistics: NodeStatistics

    /// The layout, attached to `node`, if the record answers `range` at `generation` (a hit is counted).
    @inline(__always)
    func answer(_ range: SizeRange, generation: UInt64, node: Node) -> Layout? {
        guard self.generation == generation, self.range == range else { return nil }
        statistics.bump(.cacheHits)
        return layout.attaching(node)
    }

    init(range: SizeRange, generation: UInt64, layout: StoredLayout, statistics: NodeStatistics) {
        self.range = range
        self.generation = generation
        self.layout = layout
        self.statistics = statistics
    }
}

extension Node {
    /// Asks for the memory that laying the node out reads, while its parent's spec is still being built (see
    /// ``WeftLayout/LayoutObject/prefetchForLayout()``): the rest of the node's object (its version, the input
    /// slots' reader gate), the first three lines of both input snapshots (which one is current is not read here:
    /// that load would wait for the very memory this asks for), and in the state, the version, the cache's first
    /// two lines (a pass stores an entry there) and the mutex that follows the state. A laid-out cell's nodes are
    /// seldom in the processor's caches when its pass begins (a feed lays out thousands); asked for together, the
    /// children's lines arrive together instead of one wait after another.
    public func prefetchForLayout() {
        let object = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        weft_prefetch(object + 64)
        weft_prefetch(object + 128)
        let state = UnsafeRawPointer(guarded.valueAddress())
        if let inputs = Self.slotOffsets.inputs {
            for slot in 0..<2 {
                let snapshot = state + inputs + slot * MemoryLayout<Snapshot>.stride
                weft_prefetch(snapshot)
                weft_prefetch(snapshot + 64)
                weft_prefetch(snapshot + 128)
            }
        }
        if let cache = MemoryLayout<State>.offset(of: \State.cache) {
            weft_prefetch(state + cache)
            weft_prefetch(state + cache + 64)
        }
        weft_prefetch(state + MemoryLayout<State>.size)
    }
}
