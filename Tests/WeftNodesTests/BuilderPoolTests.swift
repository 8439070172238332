import Testing
@testable import WeftLayout
@testable import WeftNodes

/// A thread's spare layout builder is lent in place (`BuilderPool.withBuilder`): a loan nested in another on the
/// same thread gets a builder of its own, and every loan starts empty, after a body that threw too.
@Suite("Builder pool", .serialized)
struct BuilderPoolTests {
    struct Failure: Error {}

    @Test("A nested loan gets its own builder of its scale; the outer one keeps its work")
    func nestedLoans() {
        BuilderPool.withBuilder(scale: 2) { outer in
            _ = outer.leaf(CountingLeaf("leaf", size: Size(1, 1)), size: Size(10, 10))
            outer.counters.cacheHits = 7
            BuilderPool.withBuilder(scale: 3) { inner in
                // A fresh builder: nothing recorded, the inner scale.
                #expect(inner.mark.records == 0)
                #expect(inner.grid.scale == 3)
                _ = inner.leaf(CountingLeaf("leaf", size: Size(1, 1)), size: Size(1, 1))
                _ = inner.leaf(CountingLeaf("leaf", size: Size(1, 1)), size: Size(1, 1))
            }
            BuilderPool.withBuilder(scale: 2) { inner in #expect(inner.mark.records == 0) }
            #expect(outer.mark.records == 1)
            #expect(outer.counters.cacheHits == 7)
        }
    }

    @Test("A loan whose body throws leaves the spare empty for the next one")
    func resetAfterThrow() {
        #expect(throws: Failure.self) {
            try BuilderPool.withBuilder(scale: 2) { builder throws(Failure) in
                _ = builder.leaf(CountingLeaf("leaf", size: Size(1, 1)), size: Size(10, 10))
                builder.counters.specCalls = 3
                throw Failure()
            }
        }
        BuilderPool.withBuilder(scale: 2) { builder in
            #expect(builder.mark.records == 0)
            #expect(builder.counters.specCalls == 0)
            #expect(builder.passNotes == nil)
        }
        // Another scale replaces the spare's builder; the next loan of the first scale is right again.
        BuilderPool.withBuilder(scale: 3) { builder in #expect(builder.grid.scale == 3) }
        BuilderPool.withBuilder(scale: 2) { builder in #expect(builder.grid.scale == 2) }
    }
}
