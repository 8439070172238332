import FeedServerCore
import Foundation
import Testing

/// Connections over real sockets: the idle, header and body timeouts, and the connection limit.
@Suite struct ConnectionTests {
    static func closedFor(_ reason: String) -> String { "weft_connections_closed_total{reason=\"\(reason)\"}" }

    @Test func aHeadThatStallsIsAnswered408AndClosed() async throws {
        try await withLiveServer(testConfiguration { $0.headerTimeout = .milliseconds(300) }) { live in
            let (port, server) = (live.port, live.server)
            let client = try RawClient(port: port)
            client.send("POST /v1/layout HTTP/1.1\r\nhost: localhost\r\n")  // and never the end of the head
            let (text, closed) = await client.readUntilClosed(within: .seconds(20))
            #expect(closed)
            #expect(text.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "\(text)")
            #expect(text.contains("its head took longer than 0.3 s"))
            #expect(metric(server, Self.closedFor("header_timeout")) == 1)
        }
    }

    @Test func aBodyTrickledInIsCutOffAtItsDeadlineNotExtendedByEachByte() async throws {
        try await withLiveServer(testConfiguration { $0.bodyTimeout = .milliseconds(500) }) { live in
            let (port, server) = (live.port, live.server)
            let client = try RawClient(port: port)
            client.send(RawClient.post("{", contentLength: 200))
            // One byte every 100 ms would take 20 s; each byte is well within any per-read timeout.
            var sent = 1
            while sent < 200, client.send(" ") {
                sent += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            let (text, closed) = await client.readUntilClosed(within: .seconds(20))
            #expect(closed)
            #expect(sent < 200)
            #expect(text.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "\(text)")
            #expect(metric(server, Self.closedFor("body_timeout")) == 1)
        }
    }

    @Test func anIdleConnectionIsClosedAfterItsAnswerAndBeforeAnyRequest() async throws {
        try await withLiveServer(testConfiguration { $0.idleTimeout = .milliseconds(300) }) { live in
            let (port, server) = (live.port, live.server)
            let answered = try RawClient(port: port)
            answered.send(RawClient.post(Samples.box("a")))
            let answer = try #require(await answered.readAnswer(within: .seconds(20)))
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
            let silent = try RawClient(port: port)
            #expect(await answered.readUntilClosed(within: .seconds(20)) == ("", true))
            #expect(await silent.readUntilClosed(within: .seconds(20)) == ("", true))
            #expect(metric(server, Self.closedFor("idle_timeout")) == 2)
        }
    }

    @Test func beyondTheLimitTheOldestIdleConnectionMakesRoom() async throws {
        try await withLiveServer(testConfiguration { $0.maxConnections = 3 }) { live in
            let (port, server) = (live.port, live.server)
            var idle: [RawClient] = []
            for count in 1...3 {
                idle.append(try RawClient(port: port))
                #expect(try await eventually { server.connections.openCount == count })
            }
            let fourth = try RawClient(port: port)
            fourth.send(RawClient.post(Samples.box("a")))
            #expect(await fourth.readAnswer(within: .seconds(20))?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
            // The first one opened was closed to make room; the others still answer.
            #expect(await idle[0].readUntilClosed(within: .seconds(20)) == ("", true))
            idle[1].send(RawClient.post(Samples.box("b")))
            #expect(await idle[1].readAnswer(within: .seconds(20))?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
            #expect(metric(server, Self.closedFor("evicted")) == 1)
            #expect(server.connections.openCount == 3)
        }
    }

    @Test func beyondTheLimitWithNoneIdleANewConnectionIsRefusedThenServedOnceOneLeaves() async throws {
        try await withLiveServer(testConfiguration { $0.maxConnections = 2 }) { live in
            let (port, server) = (live.port, live.server)
            var busy: [RawClient] = []
            for count in 1...2 {
                let client = try RawClient(port: port)
                client.send("POST /v1/layout HTTP/1.1\r\n")  // receiving its head: not idle
                busy.append(client)
                #expect(try await eventually { server.connections.openCount == count })
            }
            let refused = try RawClient(port: port)
            let (text, closed) = await refused.readUntilClosed(within: .seconds(20))
            #expect(closed)
            #expect(text.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"), "\(text)")
            #expect(metric(server, Self.closedFor("refused")) == 1)
            busy.removeFirst()  // closes it
            #expect(try await eventually { server.connections.openCount == 1 })
            let later = try RawClient(port: port)
            later.send(RawClient.post(Samples.box("a")))
            #expect(await later.readAnswer(within: .seconds(20))?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
        }
    }

    @Test func theOpenFileLimitCapsConnectionsWithDescriptorsToSpare() {
        var configuration = FeedServerConfiguration()
        #expect(configuration.connectionLimit(openFiles: 1_024) == 1_024 - 64)
        #expect(configuration.connectionLimit(openFiles: 10) == 1)
        configuration.maxConnections = 100
        #expect(configuration.connectionLimit(openFiles: 1_024) == 100)
        #expect(configuration.connectionLimit(openFiles: 128) == 64)
    }
}
