/// A growable buffer that one owner uses as a stack of scratch space: the builder's records and the arena's
/// specs, appended to and truncated by every layout step.
///
/// A `ContiguousArray` checked that its buffer was uniquely referenced on every append, and dropped elements
/// one `removeLast()` at a time (or through the generic `replaceSubrange`, which cost more for the few a step
/// pushes and pops); this buffer is noncopyable, so it is always unique: an append is a capacity check and a
/// store, a truncation of trivial elements sets the count. Indices are checked as an array checks them.
@usableFromInline
package struct ScratchArray<Element>: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<Element>
    @usableFromInline package private(set) var count: Int
    @usableFromInline package private(set) var capacity: Int

    /// An empty buffer; nothing is allocated until the first append.
    @inlinable
    package init() {
        // Never dereferenced or freed while the capacity is 0 (an empty array's storage is shared the same way).
        base = UnsafeMutablePointer(bitPattern: MemoryLayout<Element>.alignment).unsafelyUnwrapped
        count = 0
        capacity = 0
    }

    /// A buffer holding `element` once.
    package init(_ element: Element) {
        self.init()
        append(element)
    }

    @inlinable
    deinit {
        base.deinitialize(count: count)
        if capacity > 0 { base.deallocate() }
    }

    @inlinable
    package var isEmpty: Bool { count == 0 }

    @inlinable
    package var last: Element? { count > 0 ? base[count - 1] : nil }

    @inlinable
    package subscript(index: Int) -> Element {
        // Addressors, as an array's: `buffer[i].field` reads the field in place, without copying the element.
        unsafeAddress {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "index out of range")
            return UnsafePointer(base + index)
        }
        unsafeMutableAddress {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "index out of range")
            return base + index
        }
    }

    @inlinable
    package mutating func append(_ element: consuming Element) {
        if count == capacity { grow(to: count + 1) }
        (base + count).initialize(to: element)
        count += 1
    }

    /// Removes and returns the last element.
    @inlinable
    @discardableResult
    package mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast() on an empty buffer")
        count -= 1
        return (base + count).move()
    }

    /// Drops the elements from `newCount` on (none if there are not that many).
    @inlinable
    package mutating func truncate(to newCount: Int) {
        guard newCount < count else { return }
        precondition(newCount >= 0, "negative count")
        (base + newCount).deinitialize(count: count - newCount)
        count = newCount
    }

    /// Drops every element, keeping the storage.
    @inlinable
    package mutating func removeAll() {
        truncate(to: 0)
    }

    /// Drops every element, one at a time, keeping the storage: for elements with references, each moved out and
    /// destroyed by its own type's code (`truncate` destroys them through the runtime's generic array destroy, a
    /// value-witness call per element; `removeLast()` in a loop checked the count each time).
    @inlinable
    package mutating func removeAllOneByOne() {
        for i in 0..<count { _ = (base + i).move() }
        count = 0
    }

    @inlinable
    package mutating func reserveCapacity(_ minimumCapacity: Int) {
        if minimumCapacity > capacity { grow(to: minimumCapacity) }
    }

    /// The elements as a buffer pointer, valid until the next change of this buffer (for loops that read one
    /// buffer while appending to another of the same owner).
    @inlinable
    package var unsafeElements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    @inlinable
    package func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<Element>) throws(E) -> R) throws(E) -> R {
        try body(unsafeElements)
    }

    /// Moves the elements to storage for at least `minimumCapacity` (at least twice the old capacity, and 4:
    /// arenas that hold one spec tree for good stay small).
    @usableFromInline
    mutating func grow(to minimumCapacity: Int) {
        let newCapacity = Swift.max(minimumCapacity, capacity * 2, 4)
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        if capacity > 0 { base.deallocate() }
        base = newBase
        capacity = newCapacity
    }
}
