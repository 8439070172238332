import FeedServerCore
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A server listening on a free loopback port, for a test.
struct LiveServer: Sendable {
    let port: Int
    let server: FeedServer
    let group: ServiceGroup

    /// Starts a graceful shutdown (and returns at once).
    func shutDown() async { await group.triggerGracefulShutdown() }
}

/// Runs `body` against a live server, then shuts it down gracefully (if `body` has not) and waits for it to
/// stop, at most `stopWithin`, so that a hang fails the test instead of stalling the run.
func withLiveServer<T: Sendable>(
    _ configuration: FeedServerConfiguration,
    stopWithin: Duration = .seconds(60),
    _ body: @escaping @Sendable (LiveServer) async throws -> T
) async throws -> T {
    let ports = AsyncStream.makeStream(of: Int.self)
    let server = try FeedServer(configuration: configuration, logger: Logger(label: "test")) { channel in
        ports.continuation.yield(channel.localAddress?.port ?? 0)
    }
    let group = server.serviceGroup(gracefulShutdownSignals: [])
    return try await withThrowingTaskGroup(of: T?.self) { tasks in
        tasks.addTask {
            try await group.run()
            return nil
        }
        var iterator = ports.stream.makeAsyncIterator()
        let live = LiveServer(port: try #require(await iterator.next()), server: server, group: group)
        let result: T
        do {
            result = try await body(live)
        } catch {
            await live.shutDown()
            throw error
        }
        await live.shutDown()
        tasks.addTask {
            try await Task.sleep(for: stopWithin)
            Issue.record("the server did not stop within \(stopWithin)")
            return nil
        }
        _ = try await tasks.next()  // the server stopped (or the limit passed)
        tasks.cancelAll()
        return result
    }
}

/// The value of the metric line starting with `name` (and its labels), as the server reports it now.
func metric(_ server: FeedServer, _ name: String) -> Double? {
    let text = server.service.metrics.registry.emitToString()
    for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
        return Double(line.dropFirst(name.count + 1))
    }
    return nil
}

/// Polls `condition` every 10 ms until it holds or `limit` passes; returns whether it held.
func eventually(within limit: Duration = .seconds(30), _ condition: () -> Bool) async throws -> Bool {
    let end = ContinuousClock.now + limit
    while ContinuousClock.now < end {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Runs blocking `work` on a thread of its own, not on one of Swift concurrency's few shared threads (which
/// the server under test needs to answer).
func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}

/// A plain TCP client for tests that must misbehave: send half a request, stall, leave early. Its reads
/// block, so they run ``offThePool(_:)``.
final class RawClient: @unchecked Sendable {
    // @unchecked: used by one test task at a time.
    private let socket: Int32

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RawClientError.failed("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            throw RawClientError.failed("connect")
        }
    }

    deinit { Glibc.close(socket) }

    /// Sends `text`; false if the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Closes the sending side (the server reads the end of input).
    func shutdownWrite() { Glibc.shutdown(socket, Int32(SHUT_WR)) }

    /// Reads until the server closes the connection or `limit` passes: what arrived, and whether it closed.
    func readUntilClosed(within limit: Duration) async -> (text: String, closed: Bool) {
        await offThePool { self.blockingReadUntilClosed(within: limit) }
    }

    /// Reads one complete answer with a `content-length` (for keep-alive requests), within `limit`.
    func readAnswer(within limit: Duration) async -> String? {
        await offThePool { self.blockingReadAnswer(within: limit) }
    }

    private func blockingReadUntilClosed(within limit: Duration) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += buffer[0..<count]
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    private func blockingReadAnswer(within limit: Duration) -> String? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            let text = String(decoding: received, as: UTF8.self)
            if let split = text.range(of: "\r\n\r\n") {
                let head = text[..<split.lowerBound].lowercased()
                if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                   let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
                   text.utf8.count - text[..<split.upperBound].utf8.count >= length {
                    return text
                }
            }
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            received += buffer[0..<count]
        }
        return nil
    }

    /// A request's text: `POST /v1/layout` with `body` and its length.
    static func post(_ body: String, contentLength: Int? = nil) -> String {
        "POST /v1/layout HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n"
            + "content-length: \(contentLength ?? body.utf8.count)\r\n\r\n" + body
    }
}

enum RawClientError: Error {
    case failed(String)
}
