import Dispatch
import FeedServerCore
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing

/// Many requests at once: every answer is right, and the same as a lone request without the cache gets.
@Suite struct ConcurrencyTests {
    /// Five distinct pages of ten photo cells, overlapping (cell n is in pages n/10 ... ), so that concurrent
    /// requests share cells in the cache.
    static let pages = (0..<5).map { p in Samples.page((0..<10).map { Samples.photoCell(p * 5 + $0) }) }

    /// Each page's answer from a server with no cache, one request at a time.
    static func expectedAnswers() async throws -> [String] {
        try await withServer(testConfiguration { $0.cacheBytes = 0 }) { client, _ in
            var answers: [String] = []
            for page in pages {
                let response = try await client.layout(page)
                #expect(response.status == .ok)
                answers.append(response.text)
            }
            return answers
        }
    }

    @Test func fiftyRequestsInParallelGetCorrectIdenticalAnswers() async throws {
        let expected = try await Self.expectedAnswers()
        #expect(expected.allSatisfy { $0.hasPrefix("{\"cells\": [") })
        try await withServer { client, server in
            try await withThrowingTaskGroup(of: (Int, Int, String).self) { group in
                for i in 0..<50 {
                    group.addTask {
                        let response = try await client.layout(Self.pages[i % 5])
                        return (i, Int(response.status.code), response.text)
                    }
                }
                var count = 0
                for try await (i, status, text) in group {
                    #expect(status == 200)
                    #expect(text == expected[i % 5], "request \(i)")
                    count += 1
                }
                #expect(count == 50)
            }
            let statistics = server.service.cache.statistics
            #expect(statistics.hits + statistics.misses == 500)
            #expect(statistics.entries == 30)
        }
    }

    @Test func fiftyRequestsInParallelOverHTTP() async throws {
        let expected = try await Self.expectedAnswers()
        try await withServer(testConfiguration(), .ahc(.http)) { client, _ in
            try await withThrowingTaskGroup(of: (Int, Int, String).self) { group in
                for i in 0..<50 {
                    group.addTask {
                        let response = try await client.layout(Self.pages[(i * 3) % 5])
                        return (i, Int(response.status.code), response.text)
                    }
                }
                for try await (i, status, text) in group {
                    #expect(status == 200)
                    #expect(text == expected[(i * 3) % 5], "request \(i)")
                }
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func theServerAnswersOtherRequestsWhileAPageIsLaidOut() async throws {
        // Every layout thread is kept busy (a job waiting on a gate) while a page is queued behind them: the
        // health checks must be answered all the same, and the page once the threads are free again.
        let page = Samples.page((0..<20).map(Samples.photoCell))
        let configuration = testConfiguration { $0.timeout = .seconds(60) }
        try await withServer(configuration, .ahc(.http)) { client, server in
            let threads = server.service.threads
            let started = DispatchSemaphore(value: 0)
            let gate = DispatchSemaphore(value: 0)
            for _ in 0..<threads.count {
                threads.submit { _ in
                    started.signal()
                    gate.wait()
                }
            }
            let allStarted = await offThePool {
                (0..<threads.count).allSatisfy { _ in started.wait(timeout: .now() + 30) == .success }
            }
            #expect(allStarted)
            let order = NIOLockedValueBox<[String]>([])
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let response = try await client.layout(page)
                    #expect(response.status == .ok)
                    order.withLockedValue { $0.append("page") }
                }
                for _ in 0..<5 {
                    let health = try await client.execute(uri: "/health", method: .get)
                    #expect(health.status == .ok)
                    order.withLockedValue { $0.append("health") }
                }
                for _ in 0..<threads.count { gate.signal() }
                try await group.waitForAll()
            }
            // The health checks did not wait for the layout threads.
            #expect(order.withLockedValue { $0 } == ["health", "health", "health", "health", "health", "page"])
        }
    }
}
