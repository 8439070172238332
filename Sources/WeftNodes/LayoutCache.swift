import WeftLayout

/// A node's cached layouts: up to four, each for one size range (after the node's style was applied, which
/// is where the parent size enters) at one pixel scale, tagged with the node's version.
///
/// An entry is valid only for the version it was computed at; `setNeedsLayout` bumps the version, so older
/// entries never answer again. Stored inline (no allocation): the keys are plain values compared in place,
/// and a layout is copied out (one retain) only on a hit. A new entry replaces the oldest.
struct LayoutCache {
    struct Entry {
        var range: SizeRange
        var scale: Double
        var version: UInt64
        var size: Size
        /// The node's own layout (flattened and detached: its root entry does not hold the node), or nil for a
        /// leaf measured by `calculateSizeThatFits`.
        var layout: StoredLayout?
    }

    /// What an entry is looked up by, and its size: no references, so comparing costs no retains.
    struct Key {
        var range: SizeRange
        var scale: Double
        var version: UInt64
        var size: Size
    }

    // Four slots as separate stored properties: a lookup touches one key at a time and copies out one layout
    // (a tuple read through a switch was copied whole, retaining all four layouts, on every hit).
    private var key0: Key?, key1: Key?, key2: Key?, key3: Key?
    private var layout0: StoredLayout?, layout1: StoredLayout?, layout2: StoredLayout?, layout3: StoredLayout?
    private var next = 0

    /// The entry for `range` at `scale` and `version`, if one was stored.
    @inline(__always)
    func lookup(_ range: SizeRange, scale: Double, version: UInt64) -> Entry? {
        if let k = key0, k.version == version, k.scale == scale, k.range == range { return Entry(k, layout0) }
        if let k = key1, k.version == version, k.scale == scale, k.range == range { return Entry(k, layout1) }
        if let k = key2, k.version == version, k.scale == scale, k.range == range { return Entry(k, layout2) }
        if let k = key3, k.version == version, k.scale == scale, k.range == range { return Entry(k, layout3) }
        return nil
    }

    /// The most recently stored valid entry whose size is `size` (the layout a parent placed at that size).
    func lookup(size: Size, scale: Double, version: UInt64) -> Entry? {
        // Newest first: the slot before `next`, then round the four (each slot read in place, not copied out).
        var slot = next
        for _ in 0..<4 {
            slot = (slot &+ 3) & 3
            switch slot {
            case 0: if let k = key0, k.version == version, k.scale == scale, k.size == size { return Entry(k, layout0) }
            case 1: if let k = key1, k.version == version, k.scale == scale, k.size == size { return Entry(k, layout1) }
            case 2: if let k = key2, k.version == version, k.scale == scale, k.size == size { return Entry(k, layout2) }
            default: if let k = key3, k.version == version, k.scale == scale, k.size == size { return Entry(k, layout3) }
            }
        }
        return nil
    }

    /// Stores `entry`; returns the layout it replaced, for the caller to release once the node's lock is
    /// released (it may hold the last reference to a node, whose deinit is the user's code).
    mutating func store(_ entry: consuming Entry) -> StoredLayout? {
        let key = entry.key
        // An entry for the same range and scale is replaced in place. (Each slot compared in place, as in
        // `lookup`: a loop over the slots copied each optional key out through a switch.)
        if let k = key0, k.range == key.range, k.scale == key.scale { return set(0, key, entry.layout) }
        if let k = key1, k.range == key.range, k.scale == key.scale { return set(1, key, entry.layout) }
        if let k = key2, k.range == key.range, k.scale == key.scale { return set(2, key, entry.layout) }
        if let k = key3, k.range == key.range, k.scale == key.scale { return set(3, key, entry.layout) }
        let replaced = set(next, key, entry.layout)
        next = (next + 1) & 3
        return replaced
    }

    /// Empties the cache; returns the layouts it held (for a going node's release queue).
    mutating func takeLayouts() -> (StoredLayout?, StoredLayout?, StoredLayout?, StoredLayout?) {
        (key0, key1, key2, key3) = (nil, nil, nil, nil)
        return (layout0.take(), layout1.take(), layout2.take(), layout3.take())
    }

    /// Empties the cache; returns what it held, for the caller to release once the node's lock is released.
    mutating func takeAll() -> LayoutCache {
        var taken = LayoutCache()
        swap(&taken, &self)
        return taken
    }

    private func key(_ slot: Int) -> Key? {
        switch slot {
        case 0: key0
        case 1: key1
        case 2: key2
        default: key3
        }
    }

    /// Sets slot `slot`; returns the layout it held.
    private mutating func set(_ slot: Int, _ key: Key, _ layout: consuming StoredLayout?) -> StoredLayout? {
        var replaced = layout
        switch slot {
        case 0: key0 = key; swap(&replaced, &layout0)
        case 1: key1 = key; swap(&replaced, &layout1)
        case 2: key2 = key; swap(&replaced, &layout2)
        default: key3 = key; swap(&replaced, &layout3)
        }
        return replaced
    }
}

extension LayoutCache.Entry {
    @inline(__always)
    init(_ key: LayoutCache.Key, _ layout: StoredLayout?) {
        self.init(range: key.range, scale: key.scale, version: key.version, size: key.size, layout: layout)
    }

    /// What the entry is looked up by, and its size (its plain values, without the layout).
    @inline(__always)
    var key: LayoutCache.Key { LayoutCache.Key(range: range, scale: scale, version: version, size: size) }
}
