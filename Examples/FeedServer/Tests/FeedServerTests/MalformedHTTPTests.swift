import FeedServerCore
import Foundation
import Testing

/// Requests the HTTP decoder cannot read, over raw sockets on loopback: each is refused with the JSON error
/// body every refusal has, `connection: close`, and the connection closed, and the server serves on.
@Suite struct MalformedHTTPTests {
    /// An answer split into its status line, its header fields (names lowercased) and its body.
    struct Answer {
        var statusLine: String
        var fields: [String: String]
        var body: String

        init?(_ text: String) {
            guard let split = text.range(of: "\r\n\r\n") else { return nil }
            var lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
            statusLine = lines.removeFirst()
            fields = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { return nil }
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            body = String(text[split.upperBound...])
        }

        /// The message of a body `{"error": "..."}` that holds nothing else, else nil.
        var errorMessage: String? {
            guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                  object.count == 1 else { return nil }
            return object["error"] as? String
        }
    }

    /// Sends `request` on a new connection and reads until the server closes it; checks the answer is a
    /// complete refusal with `status` and a JSON error, and returns its message.
    static func refusal(of request: String, port: Int, status: String,
                        sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let client = try RawClient(port: port)
        let sent = await offThePool { client.send(request) }
        #expect(sent, "the server read the whole request before closing", sourceLocation: sourceLocation)
        let (text, closed) = await client.readUntilClosed(within: .seconds(20))
        #expect(closed, sourceLocation: sourceLocation)
        let answer = try #require(Answer(text), "\(text)", sourceLocation: sourceLocation)
        #expect(answer.statusLine == "HTTP/1.1 \(status)", sourceLocation: sourceLocation)
        #expect(answer.fields["connection"] == "close", sourceLocation: sourceLocation)
        #expect(answer.fields["content-type"] == "application/json; charset=utf-8", sourceLocation: sourceLocation)
        #expect(answer.fields["content-length"] == "\(answer.body.utf8.count)", sourceLocation: sourceLocation)
        #expect(answer.body.hasSuffix("}\n") && answer.body.filter { $0 == "\n" }.count == 1, sourceLocation: sourceLocation)
        return try #require(answer.errorMessage, "\(answer.body)", sourceLocation: sourceLocation)
    }

    static let malformed = "weft_connections_closed_total{reason=\"malformed\"}"

    /// After the refusals, a well-formed request on a new connection is answered as ever.
    static func servesOn(_ port: Int) async throws {
        let client = try RawClient(port: port)
        client.send(RawClient.post(Samples.box("a")))
        let answer = try #require(await client.readAnswer(within: .seconds(20)).flatMap(Answer.init))
        #expect(answer.statusLine == "HTTP/1.1 200 OK")
        #expect(answer.body == "{\n  \"a\": [0, 0, 375, 10]\n}\n")
    }

    @Test func twoContentLengthsAre400() async throws {
        try await withLiveServer(testConfiguration()) { live in
            let request = "POST /v1/layout HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n"
                + "content-length: 2\r\ncontent-length: 3\r\n\r\n{}"
            let message = try await Self.refusal(of: request, port: live.port, status: "400 Bad Request")
            #expect(message == "the request is not valid HTTP/1.1: more than one Content-Length, or a Content-Length with Transfer-Encoding")
            #expect(metric(live.server, Self.malformed) == 1)
            try await Self.servesOn(live.port)
        }
    }

    @Test func aGarbageRequestLineIs400() async throws {
        try await withLiveServer(testConfiguration()) { live in
            let message = try await Self.refusal(of: "\u{1}\u{2}\u{3} garbage\r\n\r\n", port: live.port, status: "400 Bad Request")
            #expect(message == "the request is not valid HTTP/1.1: the request line does not start with a method")
            #expect(metric(live.server, Self.malformed) == 1)
            try await Self.servesOn(live.port)
        }
    }

    @Test func garbageAfterAnAnsweredRequestOnTheSameConnectionIs400() async throws {
        try await withLiveServer(testConfiguration()) { live in
            let client = try RawClient(port: live.port)
            client.send(RawClient.post(Samples.box("a")))
            let first = try #require(await client.readAnswer(within: .seconds(20)).flatMap(Answer.init))
            #expect(first.statusLine == "HTTP/1.1 200 OK")
            client.send("GET /health HTTP/1.1\r\nhost: localhost\r\nno colon here\r\n\r\n")
            let (text, closed) = await client.readUntilClosed(within: .seconds(20))
            #expect(closed)
            let answer = try #require(Answer(text), "\(text)")
            #expect(answer.statusLine == "HTTP/1.1 400 Bad Request")
            #expect(answer.fields["connection"] == "close")
            #expect(answer.errorMessage?.hasPrefix("the request is not valid HTTP/1.1: ") == true, "\(answer.body)")
            #expect(metric(live.server, Self.malformed) == 1)
        }
    }

    /// A 1 MiB header field: over Hummingbird's default limits (80 KiB in all, and in one field).
    @Test func aMebibyteHeaderIs431() async throws {
        try await withLiveServer(testConfiguration()) { live in
            let request = "GET /health HTTP/1.1\r\nhost: localhost\r\nx-padding: "
                + String(repeating: "a", count: 1 << 20) + "\r\n\r\n"
            let message = try await Self.refusal(of: request, port: live.port, status: "431 Request Header Fields Too Large")
            #expect(message == "the request's header fields are over the limit of 81920 bytes in all (81920 in one) or 1000 fields")
            #expect(metric(live.server, Self.malformed) == 1)
            try await Self.servesOn(live.port)
        }
    }

    /// A client still sending when it is refused (16 MiB: more than loopback's socket buffers hold) can send
    /// it all, the rest read and dropped, and then reads its refusal: closing at once, with bytes unread,
    /// would reset the connection under it.
    @Test func aClientStillSendingWhenRefusedSendsItAllAndReadsTheRefusal() async throws {
        try await withLiveServer(testConfiguration()) { live in
            let request = "GET /health HTTP/1.1\r\nhost: localhost\r\nx-padding: "
                + String(repeating: "a", count: 16 << 20) + "\r\n\r\n"
            let message = try await Self.refusal(of: request, port: live.port, status: "431 Request Header Fields Too Large")
            #expect(message.hasPrefix("the request's header fields are over the limit"))
        }
    }

    /// The refusal ends the server's output at once; a client that keeps its side open is closed after the
    /// linger limit (5 s), not before.
    @Test func aRefusedClientThatStaysIsClosedAfterTheLingerLimit() async throws {
        try await withLiveServer(testConfiguration()) { live in
            let client = try RawClient(port: live.port)
            client.send("\u{1} garbage\r\n\r\n")
            let started = ContinuousClock.now
            let (text, closed) = await client.readUntilClosed(within: .seconds(20))
            #expect(closed)  // the server's side: the end of its output
            #expect(text.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
            #expect(try await eventually { live.server.connections.openCount == 0 })
            let waited = ContinuousClock.now - started
            #expect(waited >= .milliseconds(4_900) && waited < .seconds(15), "\(waited)")
        }
    }
}
