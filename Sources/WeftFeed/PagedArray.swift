/// An array in pages of 4,096 elements: appending never moves what is there, so growing it costs one page at a
/// time, never a copy of the whole (a feed's tables grow within an apply-queue turn, where a copy of a million
/// entries and the page faults of its new storage would take milliseconds).
struct PagedArray<Element> {
    private static var shift: Int { 12 }
    private static var pageSize: Int { 1 << shift }

    private var pages: [[Element]] = []
    private(set) var count = 0

    init() {}

    subscript(index: Int) -> Element {
        _read { yield pages[index >> Self.shift][index & (Self.pageSize - 1)] }
        _modify { yield &pages[index >> Self.shift][index & (Self.pageSize - 1)] }
    }

    mutating func append(_ element: Element) {
        if count & (Self.pageSize - 1) == 0 {
            var page: [Element] = []
            page.reserveCapacity(Self.pageSize)
            pages.append(page)
        }
        pages[pages.count - 1].append(element)
        count += 1
    }

    mutating func removeAll() {
        pages.removeAll()
        count = 0
    }

    /// The bytes its storage holds (whole pages, and the list of them).
    var storageBytes: Int {
        pages.count * Self.pageSize * MemoryLayout<Element>.stride + pages.capacity * MemoryLayout<[Element]>.stride
    }
}
