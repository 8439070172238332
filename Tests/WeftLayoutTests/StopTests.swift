import Synchronization
import Testing
import WeftLayout

/// A computation asks its builder's `shouldStop` every `stopCheckInterval` layouts made, and ends with a limit
/// error when it answers yes: a caller past its deadline stops the work within a few hundred layouts.
@Suite("Stopping a layout")
struct StopTests {
    final class Calls: Sendable {
        let count = Atomic<Int>(0)
        let stopAt: Int

        init(stopAt: Int) {
            self.stopAt = stopAt
        }

        /// Counts the call; true from the `stopAt`-th on.
        func ask() -> Bool {
            count.add(1, ordering: .relaxed).newValue >= stopAt
        }
    }

    /// A row of 10,000 growing children 10 wide, in a row 100,000 wide: they fill it exactly, so nothing grows and
    /// each child is laid out once, 10,000 layouts.
    let row: (StackSpec, SizeRange) = (
        StackSpec(StackOptions(direction: .horizontal, alignItems: .start),
                  children: (0..<10_000).map { _ in Box(style: LayoutStyle(width: .points(10), height: .points(10), flexGrow: 1)) }),
        SizeRange(min: Size(100_000, 0), max: Size(100_000, .infinity)))

    @Test("A hook that never says stop is asked about once per interval of layouts, and the layout is unchanged")
    func askedPerInterval() throws {
        let calls = Calls(stopAt: .max)
        var builder = LayoutBuilder()
        builder.shouldStop = { calls.ask() }
        let layout = try Layout.compute(row.0, in: row.1, using: &builder)
        let plain = try Layout.compute(row.0, in: row.1)
        #expect(layout.flattened().map(\.frame) == plain.flattened().map(\.frame))
        // Asked before each child once 256, 512, ... layouts are made: 39 times in 10,000 children.
        #expect(calls.count.load(ordering: .relaxed) == 10_000 / LayoutBuilder.stopCheckInterval)
    }

    @Test("A hook that says stop ends the computation at its next check, with a limit error naming the child")
    func stopsAtTheNextCheck() throws {
        let calls = Calls(stopAt: 3)
        var builder = LayoutBuilder()
        builder.shouldStop = { calls.ask() }
        do {
            _ = try Layout.compute(row.0, in: row.1, using: &builder)
            Issue.record("the layout ran to the end")
        } catch {
            #expect(error.kind == .limit)
            #expect(error.reason == LayoutBuilder.stoppedReason)
            // The third check comes after 3 x 256 layouts, before the row's 769th child.
            #expect(error.path == "root.children[\(3 * LayoutBuilder.stopCheckInterval)]")
        }
        #expect(calls.count.load(ordering: .relaxed) == 3)
        // The hook stays with the builder (reset keeps it); without it the same builder lays the row out.
        builder.shouldStop = nil
        #expect(try Layout.compute(row.0, in: row.1, using: &builder).size == Size(100_000, 10))
    }
}
