import NIOConcurrencyHelpers

/// The output formats of a cell.
public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
    /// What `weft layout --format flat` prints: every id mapped to `[x, y, width, height]`.
    case flat
    /// What `weft layout --format json` prints: the layout tree.
    case tree
}

/// What identifies a cell's layout: its content (its text as received, or re-serialized canonically: see
/// `JSONValue.canonicalText`), the width it is laid out in, the output format, the screen scale its frames are
/// rounded to and the font set its text is measured with.
public struct CellKey: Hashable, Sendable {
    public var content: String
    public var width: Double
    public var format: OutputFormat
    public var scale: Double
    public var fontSet: String

    public init(content: String, width: Double, format: OutputFormat, scale: Double = 2,
                fontSet: String = FontSets.defaultName) {
        self.content = content
        self.width = width
        self.format = format
        self.scale = scale
        self.fontSet = fontSet
    }

    /// The key of a cell laid out with `options`.
    public init(content: String, options: LayoutOptions) {
        self.init(content: content, width: options.width, format: options.format, scale: options.scale,
                  fontSet: options.fontSet)
    }

    /// The key as one text, for the shared cache: the layout context on the first line (format, width, scale,
    /// font set: none of them holds a space or a line break), then the content.
    public var storageText: String {
        "\(format.rawValue) \(width) \(scale) \(fontSet)\n\(content)"
    }
}

/// A cell's rendered output, with the number of elements it holds (a hit still counts towards a request's
/// element limit, so that an answer never depends on what happens to be cached). The count is at most the
/// JSON objects of the cell's text, also when read from the shared cache (``CellEntry``), so a request's
/// counts add up to less than its body's length.
public struct CachedCell: Sendable, Equatable {
    public var output: String
    public var elementCount: Int

    public init(output: String, elementCount: Int) {
        self.output = output
        self.elementCount = elementCount
    }
}

/// The cache of cell layouts shared by every request: a ``ByteBoundedLRU`` behind one lock.
///
/// A cell costs what it takes in memory: the UTF-8 bytes of its key's content and of its output, plus
/// ``entryOverhead`` for the two strings' storage headers and the cache's own bookkeeping, so the bound holds
/// for tiny cells too (a 40-byte cell costs about 400 bytes in all). Threading: every method MAY be called
/// from any thread; the lock is held only for the dictionary and list updates, never while laying out, and
/// values dropped by an insertion are released after the lock is let go.
public final class CellCache: Sendable {
    private let state: NIOLockedValueBox<ByteBoundedLRU<CellKey, CachedCell>>

    /// A cache of at most `capacity` bytes (0: nothing is kept).
    public init(capacity: Int) {
        state = NIOLockedValueBox(ByteBoundedLRU(capacity: capacity))
    }

    /// What a cell costs in the cache: its key's and output's text, and ``entryOverhead``.
    public static func cost(of key: CellKey, _ cell: CachedCell) -> Int {
        key.content.utf8.count + cell.output.utf8.count + entryOverhead
    }

    /// What an entry costs beyond its text: two strings' heap storage (a 32-byte object header each, and
    /// malloc's bookkeeping and rounding, counted as 32 more) and the LRU's bookkeeping
    /// (``ByteBoundedLRU/bookkeepingBytesPerEntry``).
    public static let entryOverhead = 2 * (32 + 32) + ByteBoundedLRU<CellKey, CachedCell>.bookkeepingBytesPerEntry

    /// The cell stored for `key`, now the most recently used; counts a hit or a miss.
    public func value(for key: CellKey) -> CachedCell? {
        state.withLockedValue { $0.value(for: key) }
    }

    /// Stores a cell, evicting the least recently used ones to stay within the bound; returns how many
    /// were evicted.
    @discardableResult
    public func insert(_ cell: CachedCell, for key: CellKey) -> Int {
        let cost = Self.cost(of: key, cell)
        // The dropped values come out of the lock and are released here, after it is let go.
        let (_, evicted) = state.withLockedValue { lru -> ([CachedCell], Int) in
            let before = lru.evictions
            let dropped = lru.insert(cell, for: key, cost: cost)
            return (dropped, lru.evictions - before)
        }
        return evicted
    }

    /// The counts and sizes, read together.
    public var statistics: Statistics {
        state.withLockedValue { lru in
            Statistics(hits: lru.hits, misses: lru.misses, evictions: lru.evictions, entries: lru.count,
                       bytes: lru.bytes, capacity: lru.capacity)
        }
    }

    /// Whether a cell is stored for `key` (no counting, no reordering).
    public func contains(_ key: CellKey) -> Bool {
        state.withLockedValue { $0.contains(key) }
    }

    /// A snapshot of the cache's counters.
    public struct Statistics: Sendable, Equatable {
        public var hits: Int
        public var misses: Int
        public var evictions: Int
        public var entries: Int
        public var bytes: Int
        public var capacity: Int

        /// Hits over lookups, or 0 before any lookup.
        public var hitRate: Double {
            hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses)
        }
    }
}
