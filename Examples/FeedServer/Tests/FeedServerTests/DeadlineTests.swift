import FeedServerCore
import Foundation
import HummingbirdTesting
import NIOCore
import Testing

/// Work stops when its request's deadline passes or its client leaves: parsing checks every 1,024 values,
/// cell jobs check before each step, and a layout asks within its work (every 256 layouts, and in text
/// measurements every few hundred microseconds).
@Suite struct DeadlineTests {
    static func stopped(_ label: String) -> String { "weft_requests_stopped_total{reason=\"\(label)\"}" }
    static func jobsStopped(_ stage: String) -> String { "weft_layout_jobs_stopped_total{stage=\"\(stage)\"}" }

    /// Jobs stopped at any stage.
    static func jobsStopped(_ server: FeedServer) -> Double {
        ["queue", "parse", "decode", "layout", "render"].reduce(0) { $0 + (metric(server, jobsStopped($1)) ?? 0) }
    }

    @Test func aBodyStillBeingParsedAtTheDeadlineStopsThere() async throws {
        // 2,000,000 numbers (4 MB): the body is not an object, so it is parsed whole, which takes far longer
        // than the time limit in a debug build (JSONParserTests checks the parser's stop hook itself). The
        // width limit is set above it, so only the deadline can stop it.
        let body = "[" + String(repeating: "0,", count: 2_000_000) + "0]"
        let configuration = testConfiguration {
            $0.timeout = .milliseconds(200)
            $0.maxBodyBytes = 8 << 20
            $0.maxElements = 5_000_000
        }
        try await withServer(configuration) { client, server in
            let response = try await client.layout(body)
            #expect(response.status == .serviceUnavailable)
            #expect(response.errorMessage == "the layout took longer than the time limit of 0.2 s")
            #expect(try await eventually { Self.jobsStopped(server) == 1 })
            #expect(metric(server, Self.stopped("deadline")) == 1)
        }
    }

    @Test func aPagePastItsDeadlineLaysOutNoMoreCells() async throws {
        let cells = 500
        let configuration = testConfiguration {
            $0.timeout = .milliseconds(20)
            $0.maxBodyBytes = 8 << 20
            $0.maxElements = 100_000
        }
        try await withServer(configuration) { client, server in
            let response = try await client.layout(Samples.page((0..<cells).map(Samples.photoCell)))
            #expect(response.status == .serviceUnavailable)
            // The work stops at its next check (splitting the body may take past the deadline in a debug build;
            // then the cells are never queued), and no cell is laid out after that.
            #expect(try await eventually { server.service.threads.queuedJobs == 0 && Self.jobsStopped(server) > 0 })
            let laidOut = metric(server, "weft_cells_laid_out_total") ?? 0
            #expect(laidOut < Double(cells))
            try await Task.sleep(for: .milliseconds(200))
            #expect(metric(server, "weft_cells_laid_out_total") ?? 0 == laidOut)
        }
    }

    @Test func aLongTextPastTheDeadlineStopsInsideItsMeasurement() async throws {
        // "א1" 450,000 times: 900,000 UTF-16 units in as many bidi runs, whose measurement takes seconds in a debug
        // build. The text's measurement asks the layout's stop hook, so the job stops inside the layout (counted at
        // that stage), not when the layout ends (at "render"). The deadline leaves the body's parsing time to end
        // first on a loaded machine.
        let body = #"{"type": "text", "id": "t", "text": ""# + String(repeating: "א1", count: 450_000) + #""}"#
        let configuration = testConfiguration {
            $0.timeout = .milliseconds(1000)
            $0.maxBodyBytes = 8 << 20
        }
        try await withServer(configuration) { client, server in
            let response = try await client.layout(body)
            #expect(response.status == .serviceUnavailable)
            #expect(try await eventually { Self.jobsStopped(server) == 1 })
            #expect(metric(server, Self.jobsStopped("layout")) == 1)
            #expect(metric(server, "weft_cells_laid_out_total") ?? 0 == 0)
        }
    }

    @Test func aRequestWhoseClientLeavesStopsItsWork() async throws {
        let cells = 500
        let configuration = testConfiguration { $0.maxBodyBytes = 8 << 20; $0.maxElements = 100_000 }
        try await withLiveServer(configuration) { live in
            let client = try RawClient(port: live.port)
            client.send(RawClient.post(Samples.page((0..<cells).map(Samples.photoCell))))
            #expect(try await eventually { live.server.service.cache.statistics.misses > 0 })
            client.shutdownWrite()  // the client is gone: its side of the connection ends
            #expect(try await eventually { metric(live.server, Self.stopped("client")) == 1 })
            #expect(try await eventually { live.server.service.threads.queuedJobs == 0 })
            #expect((metric(live.server, "weft_cells_laid_out_total") ?? 0) < Double(cells))
        }
    }
}
