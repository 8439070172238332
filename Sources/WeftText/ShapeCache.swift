import WeftSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Shaped paragraphs by text, fonts and features: bounded in bytes, shared by every thread that measures
/// with one measurer.
///
/// The key leaves out what shaping does not depend on (point sizes, line heights, the amount of letter
/// spacing, paragraph options), so re-measuring a text at another width, size or line limit is a hit.
///
/// Threading: the cache is split into ``shardCount`` shards by the key's hash, each one dictionary behind its
/// own pthread mutex. A lookup holds its shard's lock for one dictionary probe (the key's hash is computed
/// before, outside the lock); shaping a miss runs outside any lock. Eviction is CLOCK (second chance) per
/// shard. Hits, misses and evictions are counted inside the same critical sections.
final class ShapeCache: @unchecked Sendable {
    // @unchecked: each shard's state is only touched with its lock held.
    static let shardCount = 16
    let capacity: Int
    private let shards: [Shard]

    /// A cache of at most `capacity` bytes (about: keys and shaped data); entries larger than an eighth of a
    /// shard are not kept.
    init(capacity: Int) {
        self.capacity = max(0, capacity)
        let perShard = self.capacity / Self.shardCount
        shards = (0..<Self.shardCount).map { _ in Shard(capacity: perShard) }
    }

    private func shard(for key: ShapeKey) -> Shard {
        shards[Int(UInt(bitPattern: key.hashValue) % UInt(Self.shardCount))]
    }

    /// The shaped paragraph for `key`, or nil (counted as a miss).
    func lookup(_ key: ShapeKey) -> ShapedParagraph? {
        let shard = shard(for: key)
        return shard.lock.withLock { shard.lookup(key) }
    }

    /// Keeps `paragraph` for `key`, evicting older entries as needed.
    func insert(_ paragraph: ShapedParagraph, for key: ShapeKey) {
        let shard = shard(for: key)
        let size = paragraph.byteSize + key.byteSize
        shard.lock.withLock { shard.insert(paragraph, for: key, size: size) }
    }

    /// The counters, summed over the shards.
    var statistics: TextCacheStatistics {
        var total = TextCacheStatistics(capacity: capacity)
        for shard in shards {
            shard.lock.withLock {
                total.hits += shard.counters.hits
                total.misses += shard.counters.misses
                total.evictions += shard.counters.evictions
                total.entries += shard.entries.count
                total.bytes += shard.bytes
            }
        }
        return total
    }

    private final class Shard {
        let lock = Lock.make()
        let capacity: Int
        var entries: [ShapeKey: Slot] = [:]
        /// Keys in insertion order from `head` on: the CLOCK's hand walks it.
        var order: [ShapeKey] = []
        var head = 0
        var bytes = 0
        var counters = TextCacheStatistics(capacity: 0)

        struct Slot {
            var paragraph: ShapedParagraph
            var size: Int
            var referenced: Bool
        }

        init(capacity: Int) {
            self.capacity = capacity
            entries.reserveCapacity(min(64, capacity / 4096))
        }

        func lookup(_ key: ShapeKey) -> ShapedParagraph? {
            guard let index = entries.index(forKey: key) else {
                counters.misses += 1
                return nil
            }
            counters.hits += 1
            entries.values[index].referenced = true
            return entries.values[index].paragraph
        }

        func insert(_ paragraph: ShapedParagraph, for key: ShapeKey, size: Int) {
            guard size <= capacity / 8, entries[key] == nil else { return }
            while bytes + size > capacity && head < order.count {
                let oldest = order[head]
                head += 1
                guard let index = entries.index(forKey: oldest) else { continue }
                if entries.values[index].referenced {
                    entries.values[index].referenced = false
                    order.append(oldest)
                } else {
                    bytes -= entries.values[index].size
                    entries.remove(at: index)
                    counters.evictions += 1
                }
            }
            if head > 64 && head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
            entries[key] = Slot(paragraph: paragraph, size: size, referenced: false)
            order.append(key)
            bytes += size
        }
    }
}

/// How a measurer's shaping cache has done: for node statistics and benchmarks.
public struct TextCacheStatistics: Hashable, Sendable {
    /// Measurements (and truncation tokens) whose shaping was found in the cache.
    public var hits = 0
    /// Those that were shaped.
    public var misses = 0
    /// Entries dropped to stay within the capacity.
    public var evictions = 0
    public var entries = 0
    /// About how many bytes the entries take.
    public var bytes = 0
    public var capacity: Int

    /// hits / (hits + misses), or 0 before any lookup.
    public var hitRate: Double { hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses) }
}
