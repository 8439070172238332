import Testing
import WeftNodes
import WeftScenarios
import WeftSync

@Suite("Parallel partitioning of the benchmark scenarios")
struct ParallelTests {
    /// `weft bench` splits its cells into threads x 8 parts: for every thread count from 1 to 64 and counts
    /// that do and do not divide evenly, the parts cover every cell exactly once, never start past the end,
    /// and differ in size by at most one.
    @Test("Parts cover every item once, in bounds, for 1 to 64 threads", arguments: 1...64)
    func partition(threads: Int) {
        for count in [0, 1, 7, 9_999, 10_000, 10_007] {
            let parts = Parallel.partition(count: count, parts: threads * 8)
            #expect(parts.count == threads * 8)
            var next = 0
            for part in parts {
                #expect(part.lowerBound == next, "\(count) items, \(threads) threads: a gap or overlap at \(part)")
                #expect(part.upperBound <= count)
                next = part.upperBound
            }
            #expect(next == count)
            let sizes = parts.map(\.count)
            #expect((sizes.max() ?? 0) - (sizes.min() ?? 0) <= 1)
        }
    }

    /// Every item is handed to exactly one thread, whatever the number of threads.
    @Test("Running on N threads visits every item once", arguments: [1, 2, 3, 16, 64])
    func run(threads: Int) throws {
        let visits = Locked([Int](repeating: 0, count: 1_000))
        try Parallel.run(threads: threads, count: 1_000) { range in
            for i in range { visits.withLock { $0[i] += 1 } }
        }
        #expect(visits.withLock { $0 }.allSatisfy { $0 == 1 })
    }

    struct Failure: Error, Equatable {}

    /// A part that throws fails the whole run with its error (the parallel scenario used to drop errors).
    @Test("An error in any part is rethrown")
    func error() {
        #expect(throws: Failure.self) {
            try Parallel.run(threads: 4, count: 100) { range in
                if range.contains(57) { throw Failure() }
            }
        }
    }
}
