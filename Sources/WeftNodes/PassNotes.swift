import WeftLayout

/// What a layout pass's computation read of each node it laid out, noted under the node's lock at the moment
/// it was read (its cache hit, or the store of the entry it computed): the entry its parent used, whether it
/// manages its subnodes, and its subnodes if it does. The pass's walk down the layouts then takes each placed
/// node's reading from here instead of locking the node a second time.
///
/// Owned by one pass on one thread (each thread keeps a spare, so a pass allocates nothing for it once the
/// buffers have grown). A note is one consistent reading of its node; if the node changes afterwards, its
/// version no longer matches when the pass is applied, and applying asks for another pass (as a second read
/// that found the change would have).
/// What a pass's walk reads of a placed node: the entry its parent placed (nil when it is no longer cached),
/// whether it manages its subnodes, and its subnodes if it does. A struct rather than a tuple: a tuple of these
/// members is copied through the runtime's generic tuple witnesses (pinned by the cold node-tree rows).
struct NodeReading {
    var entry: LayoutCache.Entry?
    var managed: Bool
    var subnodes: NodeList
}

/// A node a parent placed in a pass: its identity, the parent's update, and the node itself with its index
/// among the parent's sublayouts (unretained: the parent's layout, which the pass holds, holds it).
struct PlacedNode {
    let node: ObjectIdentifier
    let update: Int
    let child: Unmanaged<Node>
    let sublayout: Int
}

final class PassNotes {
    struct Note {
        /// The node's identity, compared without retaining it (`node` keeps it alive while noted).
        let id: ObjectIdentifier
        /// The node, held while noted; moved out to the pass's update of a placed leaf (``takeNode(_:)``).
        var node: Node?
        /// The entry, kept as its plain key and its layout: a field of a nested entry read in place copied the
        /// whole entry (a retain and a release of its layout).
        let key: LayoutCache.Key
        let layout: StoredLayout?
        let managed: Bool
        let subnodes: NodeList
    }

    // Unchecked: one thread at a time owns the notes, and no access overlaps another.
    @exclusivity(unchecked) private var notes = ScratchArray<Note>()
    /// An open-addressed index from a node to its latest note (index + 1; 0 is empty), built by ``index()``
    /// when there are too many notes to scan.
    @exclusivity(unchecked) private var slots = ScratchArray<Int32>()
    @exclusivity(unchecked) private var mask = 0
    /// 64 less log2 of the index's capacity: a hash's top bits pick the first slot.
    @exclusivity(unchecked) private var shift = 64
    /// How many of the newest notes a lookup while laying out scans for an entry the pass just stored.
    private static let recent = 8
    /// Up to this many notes are scanned from the newest instead of indexed.
    private static let scanned = 16
    /// The most notes whose buffers a thread's spare keeps between passes.
    private static let keptCapacity = 1_024

    /// Notes `node`'s reading (while its parent lays it out) in the notes a builder refers to (unretained: the
    /// pass holds them).
    @inline(__always)
    static func note(
        in notes: UnsafeMutableRawPointer, _ node: Node, key: LayoutCache.Key, layout: consuming StoredLayout?, managed: Bool,
        subnodes: NodeList
    ) {
        // (Moved into the closure through an optional: a captured note would be copied, its layout retained.)
        var note: Note? = Note(id: ObjectIdentifier(node), node: node, key: key, layout: layout, managed: managed, subnodes: subnodes)
        Unmanaged<PassNotes>.fromOpaque(notes)._withUnsafeGuaranteedRef { notes in
            if let note = note.take() { notes.notes.append(note) }
        }
    }

    /// A layout of `node` for `range` at `scale` and `version` noted among the last few notes (a stack measuring
    /// a child again at a range it just used), made the node's latest note if it is not; nil otherwise. Lets a
    /// pass skip the node's lock for a hit on an entry it stored itself.
    @inline(__always)
    static func recentEntry(
        in notes: UnsafeMutableRawPointer, _ node: Node, _ range: SizeRange, scale: Double, version: UInt64
    ) -> LayoutCache.Entry? {
        Unmanaged<PassNotes>.fromOpaque(notes)._withUnsafeGuaranteedRef { notes in notes.recentEntry(node, range, scale: scale, version: version) }
    }

    private func recentEntry(_ node: Node, _ range: SizeRange, scale: Double, version: UInt64) -> LayoutCache.Entry? {
        let id = ObjectIdentifier(node)
        let end = notes.count
        var i = end - 1
        var latest = true
        while i >= 0 && i >= end - Self.recent {
            if notes[i].id == id {
                let key = notes[i].key
                if key.version == version && key.scale == scale && key.range == range {
                    if !latest { notes.append(notes[i]) }
                    return LayoutCache.Entry(key, notes[i].layout)
                }
                latest = false
            }
            i -= 1
        }
        return nil
    }

    /// Prepares the lookups, once the computation is done (linear in the notes).
    func index() {
        mask = 0
        guard notes.count > Self.scanned else { return }
        var capacity = 1
        var bits = 0
        while capacity < notes.count * 2 {
            capacity <<= 1
            bits += 1
        }
        slots.removeAll()
        slots.reserveCapacity(capacity)
        for _ in 0..<capacity { slots.append(0) }
        mask = capacity - 1
        shift = 64 - bits
        for i in 0..<notes.count {
            let id = notes[i].id
            var slot = Self.hash(id, shift: shift)
            while slots[slot] != 0 && notes[Int(slots[slot]) - 1].id != id { slot = (slot + 1) & mask }
            slots[slot] = Int32(truncatingIfNeeded: i + 1)
        }
    }

    /// What the walk needs of `node` besides its entry (whether it manages its subnodes, and its subnodes if it
    /// does), from its latest note if that note's entry is of `size` at `scale` (what its parent placed); nil
    /// sends the pass to read the node itself.
    @inline(__always)
    func walkReading(_ node: Node, size: Size, scale: Double) -> (managed: Bool, subnodes: NodeList)? {
        guard let found = noteIndex(node, size: size, scale: scale) else { return nil }
        return inPlace(found) { ($0.pointee.managed, $0.pointee.subnodes) }
    }

    // Note `index`'s parts, each read in place through the buffer (a note copied whole retains its node, layout
    // and subnodes; read through the array, a part of the entry copied the whole entry).
    @inline(__always) func version(_ index: Int) -> UInt64 { inPlace(index) { $0.pointee.key.version } }
    @inline(__always) func layout(_ index: Int) -> StoredLayout? { inPlace(index) { $0.pointee.layout } }
    @inline(__always) func range(_ index: Int) -> SizeRange { inPlace(index) { $0.pointee.key.range } }
    @inline(__always) func managed(_ index: Int) -> Bool { inPlace(index) { $0.pointee.managed } }
    /// Whether note `index` is of a leaf: no layout of its own and no subnodes to manage.
    @inline(__always) func isLeaf(_ index: Int) -> Bool { inPlace(index) { $0.pointee.layout == nil && !$0.pointee.managed } }
    @inline(__always) func subnodes(_ index: Int) -> NodeList { inPlace(index) { $0.pointee.subnodes } }

    /// Note `index`'s node, moved out of the note (which then no longer holds it), or nil if it was moved out
    /// already: the pass's update takes over the note's reference (a retain here and a release when the notes
    /// are cleared, per leaf, otherwise).
    @inline(__always)
    func takeNode(_ index: Int) -> Node? {
        notes.withUnsafeBufferPointer { notes in
            UnsafeMutablePointer(mutating: notes.baseAddress.unsafelyUnwrapped + index).pointee.node.take()
        }
    }

    @inline(__always)
    private func inPlace<R>(_ index: Int, _ read: (UnsafePointer<Note>) -> R) -> R {
        notes.withUnsafeBufferPointer { read($0.baseAddress.unsafelyUnwrapped + index) }
    }

    /// The index of `node`'s latest note, if its entry is of `size` at `scale` (``reading(_:size:scale:)``).
    @inline(__always)
    func noteIndex(_ node: Node, size: Size, scale: Double) -> Int? {
        noteIndex(ObjectIdentifier(node), size: size, scale: scale)
    }

    /// ``noteIndex(_:size:scale:)`` by the node's identity.
    @inline(__always)
    func noteIndex(_ id: ObjectIdentifier, size: Size, scale: Double) -> Int? {
        // Through the buffer: `notes[i].id` copied the whole note (retains and releases) to read one field.
        return notes.withUnsafeBufferPointer { notes -> Int? in
            var found = notes.count - 1
            if mask == 0 {
                // The newest first: only the node's latest note is the layout its parent placed (a parent may lay
                // a node out twice at ranges of one rounded size, and its spec may differ between them).
                while found >= 0 && notes[found].id != id { found -= 1 }
                if found < 0 { return nil }
            } else {
                var slot = Self.hash(id, shift: shift)
                while true {
                    let index = Int(slots[slot])
                    if index == 0 { return nil }
                    if notes[index - 1].id == id { found = index - 1; break }
                    slot = (slot + 1) & mask
                }
            }
            let note = notes.baseAddress.unsafelyUnwrapped + found
            guard note.pointee.key.size == size, note.pointee.key.scale == scale else { return nil }
            return found
        }
    }

    /// A pass's list of placed nodes, kept here between passes (empty, its capacity kept unless a large pass
    /// grew it): a pass takes it, and gives it back when it is done.
    @exclusivity(unchecked) private var placed: [PlacedNode] = []

    func takePlaced() -> [PlacedNode] {
        var taken: [PlacedNode] = []
        swap(&taken, &placed)
        return taken
    }

    /// Takes `buffer` back (leaving it empty), emptied in place.
    func givePlaced(_ buffer: inout [PlacedNode]) {
        guard buffer.capacity <= Self.keptCapacity else { return }
        buffer.removeAll(keepingCapacity: true)
        swap(&placed, &buffer)
    }

    /// Forgets every note (releasing the nodes and layouts), keeping the buffers unless a large pass grew them
    /// (a thread keeps its spare notes: it should not keep a huge tree's worth).
    func clear() {
        if notes.capacity > Self.keptCapacity {
            notes = ScratchArray()
            slots = ScratchArray()
        } else {
            // One at a time: the note's own releases, inlined (`removeAll()` went through the runtime's generic
            // array destroy, a value-witness call per note).
            notes.removeAllOneByOne()
        }
        mask = 0
    }

    @inline(__always)
    private static func hash(_ id: ObjectIdentifier, shift: Int) -> Int {
        // Fibonacci hashing of the object's address (16-byte aligned, and close to its neighbours'): multiplied
        // by 2^64 / phi, the top bits are spread well; `shift` keeps as many as the index has slots.
        let bits = UInt(bitPattern: id) >> 4
        return Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) >> UInt(shift))
    }
}
