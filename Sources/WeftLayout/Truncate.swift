extension ContiguousArray {
    /// Drops the elements from `count` on, one at a time (cheaper than `removeSubrange` for the few that a
    /// layout step pushes and pops).
    @inlinable @inline(__always)
    mutating func truncate(to count: Int) {
        while self.count > count { removeLast() }
    }
}
