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
