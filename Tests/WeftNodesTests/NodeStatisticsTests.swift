import Dispatch
import Foundation
import Testing
@testable import WeftNodes

/// Each thread counts in a block of its own per statistics instance, found through a C thread-local slot (the
/// last instance it counted in) or its table of blocks, which is emptied when it holds 32.
@Suite("Node statistics")
struct NodeStatisticsTests {
    /// More instances than a thread's table holds, counted in round robin (each bump misses the slot, and every
    /// 33rd empties the table): the counts are exact and each instance keeps one block for the thread (it used
    /// to register a new one after each emptying, and keep them all).
    @Test("Round robin over more instances than a thread's table holds: exact counts, one block each")
    func roundRobin() {
        let instances = (0..<45).map { _ in NodeStatistics() }
        let rounds = 20
        for _ in 0..<rounds {
            for (k, statistics) in instances.enumerated() {
                statistics.bump(.cacheHits)
                if k % 3 == 0 { statistics.bump(.cacheMisses, by: 2) }
            }
        }
        for (k, statistics) in instances.enumerated() {
            let counts = statistics.snapshot
            #expect(counts.cacheHits == rounds)
            #expect(counts.cacheMisses == (k % 3 == 0 ? 2 * rounds : 0))
            #expect(statistics.blockCount == 1)
        }
    }

    /// Threads that count and end, across instances: every count arrives, in its own instance.
    @Test("Counts from threads that end arrive in their own instances")
    func endingThreads() {
        let instances = (0..<5).map { _ in NodeStatistics() }
        for _ in 0..<4 {
            let done = DispatchSemaphore(value: 0)
            for worker in 0..<8 {
                Thread.detachNewThread {
                    for (k, statistics) in instances.enumerated() where (worker + k) % 2 == 0 {
                        statistics.bump(.specCalls, by: k + 1)
                    }
                    done.signal()
                }
            }
            for _ in 0..<8 { done.wait() }
        }
        for (k, statistics) in instances.enumerated() {
            // 4 rounds of 8 workers, half of which count k + 1 in instance k.
            #expect(statistics.snapshot.specCalls == 4 * 4 * (k + 1))
        }
    }
}
