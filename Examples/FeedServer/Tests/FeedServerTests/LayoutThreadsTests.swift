import Dispatch
import FeedServerCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import Testing
import WeftLayout

/// The layout threads: deep documents fit their stacks, every queued job runs, shutdown waits for them.
@Suite struct LayoutThreadsTests {
    @Test func aDocumentAThousandLevelsDeepFitsTheLayoutThreadsStack() async throws {
        // Far more than a Dispatch worker's 512 KB of stack could hold in a debug build.
        try await withServer(testConfiguration { $0.maxDepth = 1_000; $0.timeout = .seconds(30) }) { client, _ in
            let response = try await client.layout(Samples.nestedInsets(999), query: "?width=2000")
            #expect(response.status == .ok)
            #expect(response.text == "{}\n")  // no ids
            let tooDeep = try await client.layout(Samples.nestedInsets(1_000))
            #expect(tooDeep.status == .unprocessableContent)
        }
    }

    @Test func everyQueuedJobRunsBeforeShutdownReturns() async {
        let threads = LayoutThreads(count: 2, stackSize: 1 << 20)
        let ran = NIOLockedValueBox(0)
        for _ in 0..<1_000 {
            #expect(threads.submit { _ in ran.withLockedValue { $0 += 1 } })
        }
        await threads.shutdown()
        #expect(ran.withLockedValue { $0 } == 1_000)
        #expect(!threads.submit { _ in })
        await threads.shutdown()  // a second time: returns at once
    }

    @Test func jobsRunOnThePoolsThreads() async {
        let threads = LayoutThreads(count: 3, stackSize: 8 << 20)
        let seen = NIOLockedValueBox<[Int?: Int]>([:])
        for _ in 0..<30 {
            threads.submit { _ in
                seen.withLockedValue { $0[LayoutThreads.currentThreadIndex, default: 0] += 1 }
                Thread.sleep(forTimeInterval: 0.002)
            }
        }
        await threads.shutdown()
        let counts = seen.withLockedValue { $0 }
        #expect(counts.values.reduce(0, +) == 30)
        #expect(Set(counts.keys).isSubset(of: [0, 1, 2]))
        #expect(counts.count >= 2)
        #expect(LayoutThreads.currentThreadIndex == nil)
    }

    @Test func requestsTakeTurnsInsteadOfWaitingBehindABigOne() async {
        // One thread: a big group of 100 jobs queued first, then a one-job group (the first big job waits until
        // both are queued). Round robin runs the small job second; first come, first served would run it last.
        let threads = LayoutThreads(count: 1, stackSize: 1 << 20)
        let order = NIOLockedValueBox<[String]>([])
        let big = JobGroup()
        let queued = DispatchSemaphore(value: 0)
        for i in 0..<100 {
            threads.submit({ _ in
                order.withLockedValue { $0.append("big \(i)") }
                if i == 0 { queued.wait() }  // until everything is queued
            }, in: big)
        }
        threads.submit({ _ in order.withLockedValue { $0.append("small") } }, in: JobGroup())
        queued.signal()
        await threads.shutdown()
        let ran = order.withLockedValue { $0 }
        #expect(ran.count == 101)
        #expect((ran.firstIndex(of: "small") ?? 100) <= 1, "\(ran.prefix(5))")
    }

    @Test func aSlowJobIsHandedOffToAnIdlePriorityThreadAndAFreshOneRunsTheRest() async throws {
        // One thread, a job of 200 ms of CPU: after 20 ms it is handed off and another thread runs the next
        // job while it goes on, at the idle scheduling class.
        let threads = LayoutThreads(count: 1, stackSize: 1 << 20, slowAfter: .milliseconds(20))
        let events = NIOLockedValueBox<[String]>([])
        threads.submit { _ in
            let end = ContinuousClock.now + .milliseconds(200)
            while ContinuousClock.now < end {}  // busy: it is CPU time that counts
            var policy: Int32 = 0
            var parameters = sched_param()
            pthread_getschedparam(pthread_self(), &policy, &parameters)
            events.withLockedValue { $0.append("slow ended, policy \(policy)") }
        }
        threads.submit { _ in events.withLockedValue { $0.append("next ran") } }
        #expect(try await eventually { events.withLockedValue { $0.count } == 2 })
        await threads.shutdown()
        // SCHED_IDLE is 5 on Linux.
        #expect(events.withLockedValue { $0 } == ["next ran", "slow ended, policy 5"])
        #expect(threads.slowJobs.total == 1)
        #expect(try await eventually { threads.slowJobs.running == 0 })
    }

    @Test func aSlowRequestRunsOnTheIdleLaneAtIdlePriority() async throws {
        let threads = LayoutThreads(count: 2, stackSize: 1 << 20)
        let seen = NIOLockedValueBox<(index: Int?, policy: Int32)?>(nil)
        threads.submit({ _ in
            var policy: Int32 = 0
            var parameters = sched_param()
            pthread_getschedparam(pthread_self(), &policy, &parameters)
            seen.withLockedValue { $0 = (LayoutThreads.currentThreadIndex, policy) }
        }, in: JobGroup(isSlow: true))
        #expect(try await eventually { seen.withLockedValue { $0 } != nil })
        let (index, policy) = try #require(seen.withLockedValue { $0 })
        #expect(index.map { (2..<4).contains($0) } == true)  // the idle lane's threads come after the normal ones
        #expect(policy == 5)  // SCHED_IDLE
        await threads.shutdown()
    }

    @Test func aSlowRequestStarvedByBusyNormalThreadsGetsATurnThere() async throws {
        // The normal lane is kept busy (so the idle lane never starts anything); after 50 ms of waiting the
        // slow request is promoted and runs on the normal thread between the busy group's jobs.
        let threads = LayoutThreads(count: 1, stackSize: 1 << 20, promoteAfter: .milliseconds(50))
        let busy = JobGroup()
        let done = NIOLockedValueBox(0)
        for _ in 0..<2_000 {
            threads.submit({ _ in
                Thread.sleep(forTimeInterval: 0.001)
                done.withLockedValue { $0 += 1 }
            }, in: busy)
        }
        let ran = NIOLockedValueBox<(index: Int?, busyDone: Int)?>(nil)
        threads.submit({ _ in
            ran.withLockedValue { $0 = (LayoutThreads.currentThreadIndex, done.withLockedValue { $0 }) }
        }, in: JobGroup(isSlow: true))
        #expect(try await eventually { ran.withLockedValue { $0 } != nil })
        let (index, busyDone) = try #require(ran.withLockedValue { $0 })
        #expect(index == 0)
        #expect(busyDone < 2_000)
        threads.discardPending(in: busy)
        await threads.shutdown()
    }

    @Test func shutdownStopsWaitingForAJobThatWillNotEnd() async throws {
        // A job that keeps its thread until the test lets it go (as a layout that cannot be stopped would):
        // shutdown gives up waiting after 100 ms and says so; once the job ends, every thread exits.
        let threads = LayoutThreads(count: 1, stackSize: 1 << 20)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        threads.submit { _ in
            started.signal()
            release.wait()
        }
        #expect(await offThePool { started.wait(timeout: .now() + 30) } == .success)
        #expect(await threads.shutdown(waitingAtMost: .milliseconds(100)) == false)
        release.signal()
        #expect(await threads.shutdown(waitingAtMost: .seconds(30)) == true)
    }

    @Test func asAServiceTheThreadsStopAtGracefulShutdown() async throws {
        let threads = LayoutThreads(count: 2, stackSize: 1 << 20)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [threads], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(threads.submit { _ in })
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(!threads.submit { _ in })
    }
}
