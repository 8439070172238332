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

        /// What an empty slot holds (never read: see `filled`).
        static var unused: Key { Key(range: SizeRange(min: .zero, max: .zero), scale: 0, version: 0, size: .zero) }
    }

    // Four slots as separate stored properties: a lookup touches one key at a time and copies out one layout
    // (a tuple read through a switch was copied whole, retaining all four layouts, on every hit). Slots fill in
    // order, so the first `filled` hold entries and the others are never read; `order` holds the filled slots'
    // numbers, a byte each, newest first (a range stored again is newest, in its own slot). In this order (the
    // counts, the layouts, then the keys; 328 bytes) a node's first entry and the counts are on its first two lines:
    // a cold pass stores one entry per node, and when each slot's key carried its own "empty" tag, the store
    // read all four, four lines apart (a third of the last-level cache misses of a pass over 10,000 cells).
    private var filled: UInt8 = 0
    private var order: UInt32 = 0
    private var layout0: StoredLayout?, layout1: StoredLayout?, layout2: StoredLayout?, layout3: StoredLayout?
    private var key0 = Key.unused, key1 = Key.unused, key2 = Key.unused, key3 = Key.unused

    /// The entry for `range` at `scale` and `version`, if one was stored.
    @inline(__always)
    func lookup(_ range: SizeRange, scale: Double, version: UInt64) -> Entry? {
        let filled = self.filled
        if filled > 0, key0.version == version, key0.scale == scale, key0.range == range { return Entry(key0, layout0) }
        if filled > 1, key1.version == version, key1.scale == scale, key1.range == range { return Entry(key1, layout1) }
        if filled > 2, key2.version == version, key2.scale == scale, key2.range == range { return Entry(key2, layout2) }
        if filled > 3, key3.version == version, key3.scale == scale, key3.range == range { return Entry(key3, layout3) }
        return nil
    }

    /// The most recently stored valid entry whose size is `size` (the layout a parent placed at that size).
    func lookup(size: Size, scale: Double, version: UInt64) -> Entry? {
        // Newest first (each read in place, not copied out).
        for k in 0..<Int(filled) {
            switch (order >> UInt32(8 * k)) & 0xFF {
            case 0: if key0.version == version, key0.scale == scale, key0.size == size { return Entry(key0, layout0) }
            case 1: if key1.version == version, key1.scale == scale, key1.size == size { return Entry(key1, layout1) }
            case 2: if key2.version == version, key2.scale == scale, key2.size == size { return Entry(key2, layout2) }
            default: if key3.version == version, key3.scale == scale, key3.size == size { return Entry(key3, layout3) }
            }
        }
        return nil
    }

    /// Stores `entry`; returns the layout it replaced, for the caller to release once the node's lock is
    /// released (it may hold the last reference to a node, whose deinit is the user's code).
    mutating func store(_ entry: consuming Entry) -> StoredLayout? {
        let key = entry.key
        // An entry for the same range and scale is replaced in place (each filled slot compared in place, as in
        // `lookup`).
        let filled = self.filled
        let slot: UInt32
        if filled > 0, key0.range == key.range, key0.scale == key.scale {
            slot = 0
        } else if filled > 1, key1.range == key.range, key1.scale == key.scale {
            slot = 1
        } else if filled > 2, key2.range == key.range, key2.scale == key.scale {
            slot = 2
        } else if filled > 3, key3.range == key.range, key3.scale == key.scale {
            slot = 3
        } else if filled < 4 {
            // A new entry: the next empty slot (not yet in `order`, which it then leads).
            slot = UInt32(filled)
            self.filled = filled &+ 1
        } else {
            // The oldest goes.
            slot = order >> 24
        }
        let replaced = set(Int(slot), key, entry.layout)
        makeNewest(slot, among: Int(filled))
        return replaced
    }

    /// Puts `slot` first in `order`, keeping the others' order among its first `count` bytes (which hold `slot`
    /// unless it is new).
    private mutating func makeNewest(_ slot: UInt32, among count: Int) {
        var rest: UInt32 = 0
        var shift: UInt32 = 8
        for k in 0..<count {
            let other = (order >> UInt32(8 * k)) & 0xFF
            if other != slot {
                rest |= other << shift
                shift &+= 8
            }
        }
        order = rest | slot
    }

    /// Empties the cache; returns the layouts it held (for a going node's release queue).
    mutating func takeLayouts() -> (StoredLayout?, StoredLayout?, StoredLayout?, StoredLayout?) {
        (filled, order) = (0, 0)
        return (layout0.take(), layout1.take(), layout2.take(), layout3.take())
    }

    /// Empties the cache; returns what it held, for the caller to release once the node's lock is released.
    mutating func takeAll() -> LayoutCache {
        var taken = LayoutCache()
        swap(&taken, &self)
        return taken
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
