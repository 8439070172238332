import WeftLayout

/// A node's cached layouts: up to four, each for one size range (after the node's style was applied, which
/// is where the parent size enters) at one pixel scale, tagged with the node's version.
///
/// An entry is valid only for the version it was computed at; `setNeedsLayout` bumps the version, so older
/// entries never answer again. Stored inline (no allocation); a new entry replaces the oldest.
struct LayoutCache {
    struct Entry {
        var range: SizeRange
        var scale: Double
        var version: UInt64
        var size: Size
        /// The node's own layout (its spec tree), or nil for a leaf measured by `calculateSizeThatFits`.
        var layout: Layout?
    }

    private var e0: Entry?
    private var e1: Entry?
    private var e2: Entry?
    private var e3: Entry?
    private var next = 0

    /// The entry for `range` at `scale` and `version`, if one was stored.
    func lookup(_ range: SizeRange, scale: Double, version: UInt64) -> Entry? {
        for slot in 0..<4 {
            if let entry = self[slot], entry.version == version, entry.scale == scale, entry.range == range {
                return entry
            }
        }
        return nil
    }

    /// The most recently stored valid entry whose size is `size` (the layout a parent placed at that size).
    func lookup(size: Size, scale: Double, version: UInt64) -> Entry? {
        for offset in 1...4 {
            let slot = (next - offset + 8) % 4
            if let entry = self[slot], entry.version == version, entry.scale == scale, entry.size == size {
                return entry
            }
        }
        return nil
    }

    mutating func store(_ entry: Entry) {
        // An entry for the same key is replaced in place.
        for slot in 0..<4 {
            if let existing = self[slot], existing.range == entry.range, existing.scale == entry.scale {
                self[slot] = entry
                return
            }
        }
        self[next] = entry
        next = (next + 1) % 4
    }

    mutating func removeAll() {
        e0 = nil
        e1 = nil
        e2 = nil
        e3 = nil
    }

    private subscript(slot: Int) -> Entry? {
        get {
            switch slot {
            case 0: return e0
            case 1: return e1
            case 2: return e2
            default: return e3
            }
        }
        set {
            switch slot {
            case 0: e0 = newValue
            case 1: e1 = newValue
            case 2: e2 = newValue
            default: e3 = newValue
            }
        }
    }
}
