import FeedServerCore
import Foundation
import HummingbirdTesting
import NIOCore
import Testing

/// The shared cache's circuit, and serving on when Redis cannot be reached (its entries: ``CellEntryTests``).
@Suite struct SharedCacheTests {
    @Test func theCircuitOpensAfterFailuresAndBacksOff() {
        var settings = RedisCircuit.Settings()
        settings.failuresToOpen = 3
        settings.shortestBackoff = .milliseconds(100)
        settings.longestBackoff = .milliseconds(300)
        let circuit = RedisCircuit(settings)
        let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000)
        for _ in 0..<2 { circuit.record(success: false, now: t0) }
        #expect(circuit.allows(now: t0))
        circuit.record(success: false, now: t0)  // the third: open for 100 ms
        #expect(!circuit.allows(now: t0 + .milliseconds(99)))
        #expect(circuit.allows(now: t0 + .milliseconds(100)))  // one probe
        #expect(!circuit.allows(now: t0 + .milliseconds(100)))  // and only one
        circuit.record(success: false, now: t0 + .milliseconds(100))  // failed: 200 ms
        #expect(!circuit.allows(now: t0 + .milliseconds(299)))
        #expect(circuit.allows(now: t0 + .milliseconds(300)))
        circuit.record(success: false, now: t0 + .milliseconds(300))  // 400, held to 300 ms
        #expect(!circuit.allows(now: t0 + .milliseconds(599)))
        #expect(circuit.allows(now: t0 + .milliseconds(600)))
        circuit.record(success: true, now: t0 + .milliseconds(600))  // closed again
        #expect(circuit.allows(now: t0 + .milliseconds(600)))
        #expect(circuit.allows(now: t0 + .milliseconds(600)))
    }

    /// A port nothing listens on (bound, then closed).
    static func refusingPort() throws -> Int {
        let socket = try ServerSocketForTests()
        return socket.port
    }

    @Test func aRedisThatRefusesConnectionsIsServedAroundWithMetrics() async throws {
        let port = try Self.refusingPort()
        // A long time limit, so that the refusal (immediate on loopback) is what ends the first lookups.
        let configuration = testConfiguration {
            $0.redis = RedisAddress(host: "127.0.0.1", port: port)
            $0.redisTimeout = .seconds(2)
        }
        try await withServer(configuration) { client, server in
            for i in 0..<8 {
                let response = try await client.layout(Samples.twoBoxes, query: "?width=\(320 + i)")
                #expect(response.status == .ok)
                #expect(response.flatFrames?["b"] == [0, 30, 50, 30])
            }
            let metrics = try await client.execute(uri: "/metrics", method: .get).text
            func value(_ line: String) -> Double {
                metrics.split(separator: "\n").first { $0.hasPrefix(line + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
            }
            #expect(value("weft_cells_laid_out_total") == 8)
            #expect(value("weft_cache_l2_hits_total") == 0)
            // Every lookup failed (refused, or skipped while the circuit rests, or timed out), and was a miss.
            let getFailures = metrics.split(separator: "\n").filter { $0.hasPrefix("weft_cache_l2_failures_total{op=\"get\"") }
                .compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +)
            #expect(getFailures == 8)
            #expect(value("weft_cache_l2_failures_total{op=\"get\",kind=\"connection\"}") >= 1)
            #expect(server.service.shared != nil)
        }
    }
}

/// Binds a TCP socket on loopback to a free port, then closes it: connecting to that port is refused.
struct ServerSocketForTests {
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: address.sin_port))
    }
}
