import FeedServerCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle
import Testing

/// `/health`, `/metrics`, graceful shutdown and configuration.
@Suite struct OperationsTests {
    @Test func healthAnswersOK() async throws {
        try await withServer { client, _ in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
            #expect(response.text == "ok")
        }
    }

    @Test func metricsCountRequestsLatenciesAndTheCache() async throws {
        try await withServer { client, _ in
            _ = try await client.layout(Samples.twoBoxes)  // 200, a miss
            _ = try await client.layout(Samples.twoBoxes)  // 200, a hit
            _ = try await client.layout("{\"type\": \"box\", \"size\": 3}")  // 400, a miss
            _ = try await client.layout(Samples.box("x"), query: "?width=no")  // 400, no lookup
            _ = try await client.execute(uri: "/health", method: .get)
            _ = try await client.execute(uri: "/nowhere", method: .get)
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
            let lines = Set(response.text.split(separator: "\n").map(String.init))
            for line in [
                "weft_http_requests_total{route=\"/v1/layout\",status=\"200\"} 2",
                "weft_http_requests_total{route=\"/v1/layout\",status=\"400\"} 2",
                "weft_http_requests_total{route=\"/health\",status=\"200\"} 1",
                "weft_http_requests_total{route=\"unmatched\",status=\"404\"} 1",
                "weft_http_request_duration_seconds_count{route=\"/v1/layout\"} 4",
                "weft_http_request_duration_seconds_bucket{route=\"/v1/layout\",le=\"+Inf\"} 4",
                "# TYPE weft_http_request_duration_seconds histogram",
                "weft_cache_hits_total 1",
                "weft_cache_misses_total 2",
                "weft_cache_evictions_total 0",
                "weft_cache_entries 1.0",
                "weft_cells_laid_out_total 1",
                "weft_layout_queue_jobs 0.0",
            ] {
                #expect(lines.contains(line), "\(line)")
            }
            #expect(lines.contains { $0.hasPrefix("weft_cache_bytes ") && $0 != "weft_cache_bytes 0.0" })
        }
    }

    @Test func gracefulShutdownFinishesTheRequestsInFlight() async throws {
        let ports = AsyncStream.makeStream(of: Int.self)
        let configuration = testConfiguration { $0.maxElements = 100_000; $0.maxBodyBytes = 8 << 20; $0.timeout = .seconds(60) }
        let server = try FeedServer(configuration: configuration, logger: Logger(label: "test")) { channel in
            ports.continuation.yield(channel.localAddress?.port ?? 0)
        }
        let group = server.serviceGroup(gracefulShutdownSignals: [])
        let cells = 1_000
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.stream.makeAsyncIterator()
            let port = try #require(await iterator.next())
            tasks.addTask {
                let page = Samples.page((0..<cells).map(Samples.photoCell))
                let response = try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
                    try await client.post("/v1/layout", body: ByteBuffer(string: page))
                }
                #expect(response.status == .ok)
                let text = response.body.map { String(buffer: $0) } ?? ""
                let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                #expect((json?["cells"] as? [Any])?.count == cells)
            }
            // Wait until the page is being laid out, then ask the group to shut down.
            while server.service.cache.statistics.misses == 0 {
                try await Task.sleep(for: .milliseconds(1))
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        // Everything stopped: the page was laid out in full before the threads exited.
        #expect(server.service.cache.statistics.entries == cells)
        #expect(!server.service.threads.submit { _ in })
    }

    @Test func shutdownClosesAStalledRequestAfterTheGraceAndStillAnswersARequestReceivedInFull() async throws {
        let configuration = testConfiguration {
            $0.shutdownGrace = .milliseconds(300)
            $0.maxElements = 100_000
            $0.maxBodyBytes = 8 << 20
        }
        let server = try await withLiveServer(configuration) { live in
            // A client that stops halfway through its body: without the grace period, shutdown waits for it.
            let stalled = try RawClient(port: live.port)
            stalled.send(RawClient.post("{\"type\": ", contentLength: 1_000))
            let full = try RawClient(port: live.port)
            full.send(RawClient.post(Samples.page((0..<200).map(Samples.photoCell))))
            #expect(try await eventually { live.server.service.cache.statistics.misses > 0 })
            await live.shutDown()
            let answer = await full.readAnswer(within: .seconds(60))
            #expect(answer?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
            #expect(await stalled.readUntilClosed(within: .seconds(60)).closed)
            return live.server
        }
        // The server stopped (`withLiveServer` records an issue if that took a minute).
        #expect(metric(server, "weft_connections_closed_total{reason=\"shutdown\"}") == 1)
        #expect(server.service.cache.statistics.entries == 200)
    }

    @Test func settingsComeFromTheEnvironment() throws {
        let configuration = try FeedServerConfiguration.fromEnvironment([
            "WEFT_HOST": "0.0.0.0", "WEFT_PORT": "9000", "WEFT_MAX_BODY_BYTES": "2048", "WEFT_MAX_DEPTH": "20",
            "WEFT_MAX_ELEMENTS": "300", "WEFT_TIMEOUT": "0.25", "WEFT_CACHE_BYTES": "1000",
            "WEFT_LAYOUT_THREADS": "3", "WEFT_SLOW_JOB": "0.05", "WEFT_SLOW_BODY_BYTES": "0", "WEFT_IDLE_TIMEOUT": "60", "WEFT_HEADER_TIMEOUT": "5",
            "WEFT_BODY_TIMEOUT": "20", "WEFT_MAX_CONNECTIONS": "500", "WEFT_SHUTDOWN_GRACE": "0", "UNRELATED": "x",
        ])
        var expected = FeedServerConfiguration()
        expected.host = "0.0.0.0"
        expected.port = 9000
        expected.maxBodyBytes = 2048
        expected.maxDepth = 20
        expected.maxElements = 300
        expected.timeout = .milliseconds(250)
        expected.cacheBytes = 1000
        expected.layoutThreads = 3
        expected.slowJob = .milliseconds(50)
        expected.slowBodyBytes = 0
        expected.idleTimeout = .seconds(60)
        expected.headerTimeout = .seconds(5)
        expected.bodyTimeout = .seconds(20)
        expected.maxConnections = 500
        expected.shutdownGrace = .zero
        #expect(configuration == expected)
        #expect(configuration.problem == nil)
    }

    @Test func theDefaultsAreModest() {
        let configuration = FeedServerConfiguration()
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.maxDepth == 64)
        #expect(configuration.maxElements == 5_000)
        #expect(configuration.maxBodyBytes == 1 << 20)
        #expect(configuration.timeout == .seconds(2))
        #expect(configuration.layoutStackSize == 16 << 20)
        #expect(configuration.timeouts == ConnectionTimeouts(idle: .seconds(30), header: .seconds(10), body: .seconds(30)))
        #expect(configuration.shutdownGrace == .seconds(10))
        #expect(configuration.problem == nil)
        var deep = configuration
        deep.maxDepth = 1_000
        #expect(deep.layoutStackSize == 64 << 20)
    }

    @Test func badSettingsAreRefusedByName() throws {
        #expect(throws: ConfigurationError(description: "WEFT_PORT: expected a whole number, got \"http\"")) {
            try FeedServerConfiguration.fromEnvironment(["WEFT_PORT": "http"])
        }
        #expect(throws: ConfigurationError(description: "--timeout: expected a number of seconds > 0, got \"0\"")) {
            var configuration = FeedServerConfiguration()
            try configuration.set("timeout", to: "0", source: "--timeout")
        }
        #expect(throws: ConfigurationError(description: "--idle-timeout: expected a number of seconds > 0, got \"0\"")) {
            var configuration = FeedServerConfiguration()
            try configuration.set("idle-timeout", to: "0", source: "--idle-timeout")
        }
        #expect(throws: ConfigurationError(description: "WEFT_SHUTDOWN_GRACE: expected a number of seconds >= 0, got \"-1\"")) {
            try FeedServerConfiguration.fromEnvironment(["WEFT_SHUTDOWN_GRACE": "-1"])
        }
        var configuration = FeedServerConfiguration()
        configuration.maxConnections = -1
        #expect(configuration.problem == "max-connections: expected a number >= 0, got -1")
        configuration = FeedServerConfiguration()
        configuration.bodyTimeout = .zero
        #expect(configuration.problem == "body-timeout: expected a time > 0, got 0.0 seconds")
        configuration = FeedServerConfiguration()
        configuration.maxDepth = 1_001
        #expect(configuration.problem == "max-depth: expected 1 to 1000, got 1001")
        configuration = FeedServerConfiguration()
        configuration.port = 70_000
        #expect(configuration.problem == "port: expected 0 to 65535, got 70000")
        #expect(throws: ConfigurationError(description: "port: expected 0 to 65535, got 70000")) {
            _ = try FeedServer(configuration: configuration)
        }
    }
}
