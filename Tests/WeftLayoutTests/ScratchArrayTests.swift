import Testing
@testable import WeftLayout

/// An element that counts its live instances, to see that the buffer releases exactly what it drops.
private final class Counted {
    nonisolated(unsafe) static var live = 0
    let value: Int

    init(_ value: Int) {
        self.value = value
        Counted.live += 1
    }

    deinit { Counted.live -= 1 }
}

/// The builder's and the arena's scratch buffer: a stack of elements that grows, is read and changed in place,
/// and drops (and releases) what is truncated.
@Suite(.serialized) struct ScratchArrayTests {
    @Test func growsPastItsCapacityKeepingEveryElementInOrder() {
        var buffer = ScratchArray<Int>()
        #expect(buffer.isEmpty && buffer.capacity == 0)
        for i in 0..<1000 { buffer.append(i * 3) }
        #expect(buffer.count == 1000)
        #expect(buffer.capacity >= 1000)
        #expect((0..<1000).allSatisfy { buffer[$0] == $0 * 3 })
        #expect(buffer.last == 2997)
    }

    @Test func changesInPlaceAndTruncatesToAMark() {
        var buffer = ScratchArray<Int>()
        for i in 0..<10 { buffer.append(i) }
        buffer[4] += 100
        #expect(buffer[4] == 104)
        buffer.truncate(to: 6)
        #expect(buffer.count == 6 && buffer.last == 5)
        // Truncating to more than there are leaves them all.
        buffer.truncate(to: 20)
        #expect(buffer.count == 6)
        #expect(buffer.removeLast() == 5)
        buffer.append(7)
        #expect(Array(buffer.unsafeElements) == [0, 1, 2, 3, 104, 7])
        buffer.removeAll()
        #expect(buffer.isEmpty && buffer.last == nil && buffer.capacity >= 6)
    }

    @Test func releasesWhatItDropsAndWhatItHoldsWhenItGoes() {
        Counted.live = 0
        do {
            var buffer = ScratchArray<Counted>()
            for i in 0..<40 { buffer.append(Counted(i)) }
            #expect(Counted.live == 40)
            buffer.truncate(to: 25)
            #expect(Counted.live == 25)
            let last = buffer.removeLast()
            #expect(last.value == 24)
            #expect(Counted.live == 25)  // `last` still holds it
            #expect(buffer[3].value == 3)
        }
        #expect(Counted.live == 0)
    }

    @Test func startsWithOneElementWhenGivenOne() {
        let buffer = ScratchArray<String>("")
        #expect(buffer.count == 1 && buffer[0] == "")
    }
}
