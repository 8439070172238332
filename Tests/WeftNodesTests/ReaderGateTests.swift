import Foundation
import Synchronization
import Testing
@testable import WeftSync
import WeftSync

/// The reclamation behind a node's published snapshots, placements and root answers (`PublishedReference`,
/// `SlotPair`, both through a `ReaderGate`): a writer waits for the reads under way, never for readers that
/// keep arriving, and never lets an object go while a reader holds it.
@Suite("Reader gate")
struct ReaderGateTests {
    final class Box: Sendable {
        let live = Atomic<Int>(1)
        deinit { live.store(0, ordering: .sequentiallyConsistent) }
    }

    /// What the threads of one test share.
    final class Shared: Sendable {
        let reference = PublishedReference<Box>()
        let slots = SlotPair()
        /// Readers entered so far, counted inside each read.
        let entered = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let published = Atomic<Bool>(false)
        let failures = Atomic<Int>(0)
    }

    /// A read that stays inside until the next reader has come in: with two threads reading so, some reader is
    /// inside at every moment, and one count of all readers would never be zero.
    static func chainedRead(_ shared: Shared) {
        let mine = shared.entered.add(1, ordering: .sequentiallyConsistent).newValue
        while shared.entered.load(ordering: .sequentiallyConsistent) == mine && !shared.stop.load(ordering: .sequentiallyConsistent) {
            sched_yield()
        }
    }

    /// Runs `read` on two threads in a chain (each read lasts until the other's next read has begun) and `write`
    /// once on a third; true if the write returned while the chain still ran (waiting at most `limit` seconds
    /// for it, then stopping the chain so that the test ends either way).
    static func writeFinishesDuringChain(
        _ shared: Shared, read: @escaping @Sendable () -> Void, write: @escaping @Sendable () -> Void, limit: Double = 20
    ) -> Bool {
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread {
                while !shared.stop.load(ordering: .sequentiallyConsistent) { read() }
                group.leave()
            }.start()
        }
        // Let the chain begin (both threads have read) before the write.
        while shared.entered.load(ordering: .sequentiallyConsistent) < 4 { sched_yield() }
        group.enter()
        Thread {
            write()
            shared.published.store(true, ordering: .sequentiallyConsistent)
            group.leave()
        }.start()
        let deadline = Date().addingTimeInterval(limit)
        while !shared.published.load(ordering: .sequentiallyConsistent) && Date() < deadline { usleep(1_000) }
        let finished = shared.published.load(ordering: .sequentiallyConsistent)
        shared.stop.store(true, ordering: .sequentiallyConsistent)
        group.wait()
        return finished
    }

    @Test("Publishing a reference finishes while overlapping readers keep arriving")
    func referenceWriterNotStarved() {
        let shared = Shared()
        shared.reference.publish(Box())
        let finished = Self.writeFinishesDuringChain(
            shared, read: { shared.reference.withCurrent { _ in Self.chainedRead(shared) } },
            write: { shared.reference.publish(Box()) })
        #expect(finished, "the writer waited for readers that came after it")
    }

    @Test("Publishing a slot finishes while overlapping readers keep arriving")
    func slotWriterNotStarved() {
        let shared = Shared()
        let finished = Self.writeFinishesDuringChain(
            shared, read: { shared.slots.read { _ in Self.chainedRead(shared) } },
            write: { shared.slots.publish(shared.slots.slotToWrite) })
        #expect(finished, "the writer waited for readers that came after it")
    }

    /// Two writers switching the halves under each other's feet could leave one waiting for the half that new
    /// readers count in (a review's interleaving: both switch to half 1 and wait for half 0; one sees it empty and
    /// switches back; the other, descheduled meanwhile, waits for half 0 while readers keep arriving there).
    /// Writers take turns, so none waits for more than the reads under way. The interleaving needs the scheduler:
    /// with writers not taking turns, 1 to 5 of these 30 trials were stuck in each of three runs.
    @Test("Concurrent publishes all finish while overlapping readers keep arriving")
    func concurrentWritersNotStarved() {
        var stuck = 0
        for _ in 0..<30 {
            let shared = Shared()
            shared.reference.publish(Box())
            let finished = Self.writeFinishesDuringChain(shared, read: {
                shared.reference.withCurrent { _ in Self.chainedRead(shared) }
            }, write: {
                let group = DispatchGroup()
                for _ in 0..<3 {
                    group.enter()
                    Thread {
                        for _ in 0..<20 { shared.reference.publish(Box()) }
                        group.leave()
                    }.start()
                }
                group.wait()
            }, limit: 5)
            if !finished { stuck += 1 }
        }
        #expect(stuck == 0, "in \(stuck) of 30 trials a writer still waited after 5 s")
    }

    final class Gate: Sendable {
        let gate = ReaderGate()
        let returned = Atomic<Bool>(false)
    }

    /// A reader counts itself in the half the gate named when it looked, which may no longer be the gate's
    /// (it looked, then a writer switched halves and finished, then it counted itself in): a writer waits for a
    /// reader inside in either half. (The reader here is one count, added directly in the half under test.)
    @Test("A writer waits for a reader inside in either half", arguments: [0, 1])
    func waitsForEitherHalf(readerHalf: Int) {
        let shared = Gate()
        let unit: UInt64 = readerHalf == 0 ? 1 : 1 << 32
        shared.gate.counts.wrappingAdd(unit, ordering: .sequentiallyConsistent)
        Thread {
            shared.gate.waitForEarlierReaders(writersSerialized: true)
            shared.returned.store(true, ordering: .sequentiallyConsistent)
        }.start()
        usleep(200_000)
        let early = shared.returned.load(ordering: .sequentiallyConsistent)
        #expect(!early, "the writer did not wait for the reader")
        shared.gate.leave(unit)
        let deadline = Date().addingTimeInterval(20)
        while !shared.returned.load(ordering: .sequentiallyConsistent) && Date() < deadline { usleep(1_000) }
        let returned = shared.returned.load(ordering: .sequentiallyConsistent)
        #expect(returned, "the writer kept waiting after the reader left")
    }

    @Test("A published object is never let go while a reader holds it")
    func noReleaseUnderReader() {
        let shared = Shared()
        shared.reference.publish(Box())
        let reads = Atomic<Int>(0)
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread {
                while !shared.stop.load(ordering: .sequentiallyConsistent) {
                    shared.reference.withCurrent { box in
                        // Twice, a little apart: the object must stay whole for the whole read.
                        if box?.live.load(ordering: .sequentiallyConsistent) != 1 { shared.failures.add(1, ordering: .relaxed) }
                        for _ in 0..<20 { _ = shared.entered.load(ordering: .relaxed) }
                        if box?.live.load(ordering: .sequentiallyConsistent) != 1 { shared.failures.add(1, ordering: .relaxed) }
                    }
                    reads.add(1, ordering: .relaxed)
                }
                group.leave()
            }.start()
        }
        // The readers are running before the writer starts, and it publishes for a while (not a count, which a
        // fast writer finished before the readers began).
        while reads.load(ordering: .relaxed) < 1_000 { sched_yield() }
        let end = Date().addingTimeInterval(0.3)
        while Date() < end { shared.reference.publish(Box()) }
        shared.stop.store(true, ordering: .sequentiallyConsistent)
        group.wait()
        #expect(shared.failures.load(ordering: .relaxed) == 0)
    }
}
