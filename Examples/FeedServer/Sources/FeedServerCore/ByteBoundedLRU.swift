/// A least-recently-used cache bounded by a total cost in bytes, with hit, miss and eviction counts.
///
/// A plain value with no locking of its own: ``CellCache`` keeps one behind a lock. Entries sit in a doubly
/// linked list threaded through an array of slots (newest at the head), with a dictionary from key to slot, so
/// lookups, insertions and evictions are O(1).
public struct ByteBoundedLRU<Key: Hashable, Value> {
    /// The most bytes the entries may cost together.
    public let capacity: Int
    /// What the entries cost together now.
    public private(set) var bytes = 0
    /// Lookups that found their key.
    public private(set) var hits = 0
    /// Lookups that did not.
    public private(set) var misses = 0
    /// Entries dropped to make room.
    public private(set) var evictions = 0

    fileprivate struct Slot {
        var key: Key?
        var value: Value?
        var cost = 0
        var newer = -1
        var older = -1
    }

    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var index: [Key: Int] = [:]
    private var newest = -1
    private var oldest = -1

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The number of entries.
    public var count: Int { index.count }

    /// The most memory this structure's own bookkeeping takes per entry, beyond what keys and values hold
    /// elsewhere: a slot in an array that grows by doubling (up to 2 slots an entry), a bucket of the index,
    /// a dictionary at most 3/4 full that grows by doubling (up to 8/3 buckets an entry), and the free list
    /// (up to 2 indexes an entry).
    public static var bookkeepingBytesPerEntry: Int {
        let slot = MemoryLayout<Slot>.stride
        let bucket = MemoryLayout<Key>.stride + MemoryLayout<Int>.stride
        return 2 * slot + (8 * bucket + 2) / 3 + 2 * MemoryLayout<Int>.stride
    }

    /// The value for `key`, which becomes the most recently used; counts a hit or a miss.
    public mutating func value(for key: Key) -> Value? {
        guard let slot = index[key] else {
            misses += 1
            return nil
        }
        hits += 1
        moveToFront(slot)
        return slots[slot].value
    }

    /// Whether `key` is present; counts nothing and changes no order.
    public func contains(_ key: Key) -> Bool {
        index[key] != nil
    }

    /// Stores `value` for `key` as the most recently used entry, evicting least recently used ones until the
    /// total fits. An entry costing more than ``capacity`` on its own is not stored. Returns the values
    /// dropped (evicted or replaced), so that the caller can release them outside its lock.
    @discardableResult
    public mutating func insert(_ value: Value, for key: Key, cost: Int) -> [Value] {
        var dropped: [Value] = []
        if let existing = index.removeValue(forKey: key) {
            if let old = release(existing) { dropped.append(old) }
        }
        guard cost <= capacity else { return dropped }
        while bytes + cost > capacity, oldest >= 0 {
            let victim = oldest
            if let key = slots[victim].key { index.removeValue(forKey: key) }
            if let old = release(victim) { dropped.append(old) }
            evictions += 1
        }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = Slot(key: key, value: value, cost: cost)
        } else {
            slot = slots.count
            slots.append(Slot(key: key, value: value, cost: cost))
        }
        index[key] = slot
        bytes += cost
        linkAtFront(slot)
        return dropped
    }

    /// Removes the entry for `key`, returning its value; counts nothing.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = index.removeValue(forKey: key) else { return nil }
        return release(slot)
    }

    /// The least recently used key, if any.
    public var oldestKey: Key? {
        oldest >= 0 ? slots[oldest].key : nil
    }

    /// The keys from the most to the least recently used.
    public var keysFromNewest: [Key] {
        var keys: [Key] = []
        var slot = newest
        while slot >= 0 {
            if let key = slots[slot].key { keys.append(key) }
            slot = slots[slot].older
        }
        return keys
    }

    /// Unlinks and empties `slot` (already removed from the index), returning its value.
    private mutating func release(_ slot: Int) -> Value? {
        unlink(slot)
        bytes -= slots[slot].cost
        let value = slots[slot].value
        slots[slot] = Slot()
        freeSlots.append(slot)
        return value
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        linkAtFront(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let newer = slots[slot].newer
        let older = slots[slot].older
        if newer >= 0 { slots[newer].older = older } else { newest = older }
        if older >= 0 { slots[older].newer = newer } else { oldest = newer }
        slots[slot].newer = -1
        slots[slot].older = -1
    }

    private mutating func linkAtFront(_ slot: Int) {
        slots[slot].older = newest
        slots[slot].newer = -1
        if newest >= 0 { slots[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}

extension ByteBoundedLRU: Sendable where Key: Sendable, Value: Sendable {}
extension ByteBoundedLRU.Slot: Sendable where Key: Sendable, Value: Sendable {}
