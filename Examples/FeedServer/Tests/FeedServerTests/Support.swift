import FeedServerCore
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// A configuration for tests: a free port, two layout threads, a time limit generous enough for a loaded
/// machine or the Thread Sanitizer (the time-limit test sets its own), no request sent to the idle-priority
/// lane (many servers share the test process's cores: their idle lanes could starve; LayoutThreadsTests
/// checks the lanes), and whatever `change` sets.
func testConfiguration(_ change: (inout FeedServerConfiguration) -> Void = { _ in }) -> FeedServerConfiguration {
    var configuration = FeedServerConfiguration()
    configuration.port = 0
    configuration.layoutThreads = 2
    configuration.timeout = .seconds(60)
    configuration.slowJob = .seconds(60)
    configuration.slowBodyBytes = 0
    change(&configuration)
    return configuration
}

/// Runs `body` against a new server with `configuration`, through the router (or a live server).
func withServer<T: Sendable>(
    _ configuration: FeedServerConfiguration = testConfiguration(),
    _ setup: TestingSetup = .router,
    _ body: @escaping @Sendable (any TestClientProtocol, FeedServer) async throws -> T
) async throws -> T {
    let server = try FeedServer(configuration: configuration)
    return try await server.application.test(setup) { client in
        try await body(client, server)
    }
}

extension TestClientProtocol {
    /// POSTs `body` to `/v1/layout` with `query` (such as `?width=320`).
    func layout(_ body: String, query: String = "") async throws -> TestResponse {
        try await execute(uri: "/v1/layout" + query, method: .post, body: ByteBuffer(string: body))
    }
}

extension TestResponse {
    /// The body as text.
    var text: String { String(buffer: body) }

    /// The body parsed as JSON.
    var json: Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// The message of an error body `{"error": "..."}`.
    var errorMessage: String? { (json as? [String: Any])?["error"] as? String }

    /// The frames of a flat output, by id.
    var flatFrames: [String: [Double]]? { Self.frames(json) }

    /// The frames of each cell of a page of flat outputs.
    var pageFrames: [[String: [Double]]]? {
        guard let cells = (json as? [String: Any])?["cells"] as? [Any] else { return nil }
        let frames = cells.compactMap { Self.frames($0) }
        return frames.count == cells.count ? frames : nil
    }

    static func frames(_ value: Any?) -> [String: [Double]]? {
        guard let object = value as? [String: Any] else { return nil }
        var frames: [String: [Double]] = [:]
        for (id, frame) in object {
            guard let numbers = frame as? [NSNumber] else { return nil }
            frames[id] = numbers.map(\.doubleValue)
        }
        return frames
    }
}

/// The sample documents of the tests, in the layout format.
enum Samples {
    /// A vertical stack of two boxes, 10 apart, aligned to the start: at width 320, `s` is 320 x (20 + 10 +
    /// 30) = 60, `a` sits at the top and `b` 20 + 10 = 30 below.
    static let twoBoxes = """
        {"type": "stack", "id": "s", "direction": "vertical", "spacing": 10, "alignItems": "start",
         "children": [{"type": "box", "id": "a", "size": [100, 20]}, {"type": "box", "id": "b", "size": [50, 30]}]}
        """

    /// A row pushed to the end: at width 200 the children take 30 + 5 + 40 = 75, so `p` starts at
    /// 200 - 75 = 125 and `q` at 125 + 30 + 5 = 160; the row is as tall as `q`, 20.
    static let endRow = """
        {"type": "stack", "id": "row", "justifyContent": "end", "alignItems": "start", "spacing": 5,
         "children": [{"type": "box", "id": "p", "size": [30, 10]}, {"type": "box", "id": "q", "size": [40, 20]}]}
        """

    /// A box of its own size, with `id`, as a one-element document.
    static func box(_ id: String, width: Double = 10, height: Double = 10) -> String {
        "{\"type\": \"box\", \"id\": \"\(id)\", \"size\": [\(width), \(height)]}"
    }

    /// A page of `cells` with optional width and format.
    static func page(_ cells: [String], width: Double? = nil, format: String? = nil) -> String {
        var members: [String] = []
        if let width { members.append("\"width\": \(width)") }
        if let format { members.append("\"format\": \"\(format)\"") }
        members.append("\"cells\": [\(cells.joined(separator: ", "))]")
        return "{" + members.joined(separator: ", ") + "}"
    }

    /// `levels` insets nested in one another around a box: a document `levels + 1` elements deep.
    static func nestedInsets(_ levels: Int) -> String {
        String(repeating: "{\"type\": \"inset\", \"insets\": 1, \"child\": ", count: levels)
            + "{\"type\": \"box\", \"size\": [1, 1]}" + String(repeating: "}", count: levels)
    }

    /// Texture's photo cell with text and image leaves (12 elements), varied by `n`.
    static func photoCell(_ n: Int) -> String {
        let names = ["ada", "grace_hopper", "linus", "margaret.h", "dennis", "barbara_liskov", "ken", "frances"]
        let places = ["Paris", "San Francisco, California", "Kyoto", "Reykjavik", "Cape Town", "Montreal"]
        let words = ["what", "a", "lovely", "view", "of", "the", "harbour", "at", "dawn", "again", "today"]
        let comment = (0..<(5 + n % 17)).map { words[($0 * 7 + n) % words.count] }.joined(separator: " ")
        return """
            {"type": "stack", "direction": "vertical", "children": [
              {"type": "inset", "insets": {"left": 8, "right": 8}, "child":
                {"type": "stack", "alignItems": "center", "children": [
                  {"type": "inset", "insets": {"top": 8, "bottom": 8, "right": 8}, "child":
                    {"type": "image", "style": {"preferredSize": [44, 44]}}},
                  {"type": "stack", "direction": "vertical", "style": {"flexShrink": 1}, "children": [
                    {"type": "text", "text": "\(names[n % names.count])\(n)", "fontSize": 14},
                    {"type": "text", "text": "\(places[n % places.count])", "fontSize": 12}]},
                  {"type": "spacer", "style": {"flexGrow": 1}}]}},
              {"type": "image", "size": [1080, 1080], "style": {"preferredSize": [375, 375]}},
              {"type": "inset", "insets": 8, "child": {"type": "text", "text": "\(comment)", "fontSize": 14}}]}
            """
    }
}
