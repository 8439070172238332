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
        var layout: Layout?
    }

    /// What an entry is looked up by, and its size: no references, so comparing costs no retains.
    struct Key {
        var range: SizeRange
        var scale: Double
        var version: UInt64
        var size: Size
    }

    private var keys: (Key?, Key?, Key?, Key?) = (nil, nil, nil, nil)
    private var layouts: (Layout?, Layout?, Layout?, Layout?) = (nil, nil, nil, nil)
    private var next = 0

    /// The entry for `range` at `scale` and `version`, if one was stored.
    @inline(__always)
    func lookup(_ range: SizeRange, scale: Double, version: UInt64) -> Entry? {
        if let k = keys.0, k.version == version, k.scale == scale, k.range == range { return entry(0, k) }
        if let k = keys.1, k.version == version, k.scale == scale, k.range == range { return entry(1, k) }
        if let k = keys.2, k.version == version, k.scale == scale, k.range == range { return entry(2, k) }
        if let k = keys.3, k.version == version, k.scale == scale, k.range == range { return entry(3, k) }
        return nil
    }

    /// The most recently stored valid entry whose size is `size` (the layout a parent placed at that size).
    func lookup(size: Size, scale: Double, version: UInt64) -> Entry? {
        for offset in 1...4 {
            let slot = (next - offset + 8) % 4
            if let k = key(slot), k.version == version, k.scale == scale, k.size == size {
                return entry(slot, k)
            }
        }
        return nil
    }

    mutating func store(_ entry: Entry) {
        let key = Key(range: entry.range, scale: entry.scale, version: entry.version, size: entry.size)
        // An entry for the same range and scale is replaced in place.
        for slot in 0..<4 {
            if let existing = self.key(slot), existing.range == entry.range, existing.scale == entry.scale {
                set(slot, key, entry.layout)
                return
            }
        }
        set(next, key, entry.layout)
        next = (next + 1) % 4
    }

    mutating func removeAll() {
        keys = (nil, nil, nil, nil)
        layouts = (nil, nil, nil, nil)
    }

    @inline(__always)
    private func entry(_ slot: Int, _ key: Key) -> Entry {
        let layout: Layout? = switch slot {
        case 0: layouts.0
        case 1: layouts.1
        case 2: layouts.2
        default: layouts.3
        }
        return Entry(range: key.range, scale: key.scale, version: key.version, size: key.size, layout: layout)
    }

    private func key(_ slot: Int) -> Key? {
        switch slot {
        case 0: return keys.0
        case 1: return keys.1
        case 2: return keys.2
        default: return keys.3
        }
    }

    private mutating func set(_ slot: Int, _ key: Key, _ layout: Layout?) {
        switch slot {
        case 0: keys.0 = key; layouts.0 = layout
        case 1: keys.1 = key; layouts.1 = layout
        case 2: keys.2 = key; layouts.2 = layout
        default: keys.3 = key; layouts.3 = layout
        }
    }
}
