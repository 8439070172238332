import FeedServerCore
import Foundation
import HummingbirdTesting
import NIOCore
import Testing
import WeftFormat
import WeftLayout
import WeftNodes

/// Every kind of bad input gets its status and a one-line message naming where and why; nothing crashes.
@Suite struct BadInputTests {
    /// The message `weft layout` prints for `text` (it decodes with the same decoder).
    static func weftLayoutMessage(_ text: String) -> String? {
        do throws(LayoutError) {
            _ = try LayoutDecoder.withNodes().decode(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test(arguments: ["{\"type\": \"box\",", "[1, 2", "", "{\"type\": \"box\"} extra", "{'type': 'box'}", "nul"])
    func malformedJSONIs400WithWeftLayoutsMessage(_ body: String) async throws {
        let expected = try #require(Self.weftLayoutMessage(body))
        #expect(expected.contains("malformed JSON at line"))
        try await withServer { client, _ in
            let response = try await client.layout(body)
            #expect(response.status == .badRequest)
            #expect(response.errorMessage == expected)
        }
    }

    @Test(arguments: ["text/plain", "application/x-www-form-urlencoded", "application/xml; charset=utf-8", "json"])
    func aBodyThatSaysItIsNotJSONIs415(_ type: String) async throws {
        try await withServer { client, _ in
            let response = try await client.execute(uri: "/v1/layout", method: .post, headers: [.contentType: type],
                                                    body: ByteBuffer(string: Samples.box("a")))
            #expect(response.status == .unsupportedMediaType)
            #expect(response.errorMessage == "the body's Content-Type \"\(type)\" is not JSON; send application/json (or no Content-Type)")
        }
    }

    @Test(arguments: ["application/json", "Application/JSON; charset=utf-8", "application/vnd.weft.page+json"])
    func aBodyThatSaysItIsJSONOrSaysNothingIsLaidOut(_ type: String) async throws {
        try await withServer { client, _ in
            let typed = try await client.execute(uri: "/v1/layout", method: .post, headers: [.contentType: type],
                                                 body: ByteBuffer(string: Samples.box("a")))
            #expect(typed.status == .ok)
            let untyped = try await client.layout(Samples.box("a"))
            #expect(untyped.status == .ok)
        }
    }

    @Test func anInvalidLayoutIs400WithTheExactPathAndReason() async throws {
        let document = """
            {"type": "stack", "children": [
              {"type": "box"}, {"type": "box"}, {"type": "box", "style": {"flexGrow": -1}}]}
            """
        try await withServer { client, _ in
            let response = try await client.layout(document)
            #expect(response.status == .badRequest)
            #expect(response.errorMessage == "root.children[2].style.flexGrow: expected a number >= 0, got -1")
            #expect(response.errorMessage == Self.weftLayoutMessage(document))
        }
    }

    @Test(arguments: [
        ("{\"type\": \"boxx\"}", "root.type: unknown element type \"boxx\""),
        ("{\"type\": \"box\", \"size\": [-1, 2]}", "root.size"),
        ("{\"type\": \"ratio\", \"ratio\": 0, \"child\": {\"type\": \"box\"}}", "root.ratio"),
        ("{\"type\": \"stack\", \"children\": [{\"type\": \"box\", \"id\": \"x\"}, {\"type\": \"box\", \"id\": \"x\"}]}",
         "root.children[1].id: duplicate id \"x\""),
        ("{\"type\": \"box\", \"colour\": 1}", "root.colour"),
        ("{\"type\": \"text\", \"fontSize\": 0}", "root.fontSize"),
        ("[]", "root"),
    ])
    func invalidDocumentsAre400NamingThePlace(_ document: String, _ prefix: String) async throws {
        try await withServer { client, _ in
            let response = try await client.layout(document)
            #expect(response.status == .badRequest)
            #expect(response.errorMessage?.hasPrefix(prefix) == true, "\(response.errorMessage ?? "no message")")
            #expect(response.errorMessage == Self.weftLayoutMessage(document))
        }
    }

    @Test func anInvalidCellOfAPageIsNamedByItsIndex() async throws {
        let bad = "{\"type\": \"stack\", \"children\": [{\"type\": \"box\", \"style\": {\"flexGrow\": -1}}]}"
        try await withServer { client, _ in
            let response = try await client.layout(Samples.page([Samples.box("a"), bad, Samples.box("b")]))
            #expect(response.status == .badRequest)
            #expect(response.errorMessage == "cells[1].children[0].style.flexGrow: expected a number >= 0, got -1")
        }
    }

    @Test func aLayoutErrorIsNamedByTheCellToo() async throws {
        // An infinite inset on the unbounded (vertical) axis is refused when laid out, not when decoded.
        let cell = "{\"type\": \"inset\", \"insets\": {\"top\": \"inf\"}, \"child\": {\"type\": \"box\"}}"
        try await withServer { client, _ in
            let alone = try await client.layout(cell)
            #expect(alone.status == .badRequest)
            #expect(alone.errorMessage?.hasPrefix("root.insets.top: an infinite inset needs a finite max height") == true)
            let inPage = try await client.layout(Samples.page([Samples.box("a"), cell]))
            #expect(inPage.status == .badRequest)
            #expect(inPage.errorMessage?.hasPrefix("cells[1].insets.top: an infinite inset needs a finite max height") == true)
        }
    }

    @Test func aBodyThatIsNotUTF8Is400() async throws {
        try await withServer { client, _ in
            var body = ByteBuffer(string: "{\"type\": \"box\", \"id\": \"")
            body.writeBytes([0xFF, 0xFE])
            body.writeString("\"}")
            let response = try await client.execute(uri: "/v1/layout", method: .post, body: body)
            #expect(response.status == .badRequest)
            #expect(response.errorMessage == "root: the body is not UTF-8 text")
        }
    }

    @Test(arguments: [
        ("?width=abc", "query width: expected a number > 0 and at most 100000, got \"abc\""),
        ("?width=0", "query width: expected a number > 0 and at most 100000, got \"0\""),
        ("?width=-5", "query width: expected a number > 0 and at most 100000, got \"-5\""),
        ("?width=inf", "query width: expected a number > 0 and at most 100000, got \"inf\""),
        ("?width=nan", "query width: expected a number > 0 and at most 100000, got \"nan\""),
        ("?width=1e9", "query width: expected a number > 0 and at most 100000, got \"1e9\""),
        ("?format=xml", "query format: expected \"flat\" or \"tree\", got \"xml\""),
        ("?format=", "query format: expected \"flat\" or \"tree\", got \"\""),
    ])
    func aBadQueryIs400NamingTheField(_ query: String, _ message: String) async throws {
        try await withServer { client, _ in
            let response = try await client.layout(Samples.box("a"), query: query)
            #expect(response.status == .badRequest)
            #expect(response.errorMessage == message)
        }
    }

    @Test(arguments: [
        ("{\"width\": \"wide\", \"cells\": []}", "width: expected a number > 0 and at most 100000, got \"wide\""),
        ("{\"width\": -1, \"cells\": []}", "width: expected a number > 0 and at most 100000, got -1"),
        ("{\"format\": 3, \"cells\": []}", "format: expected \"flat\" or \"tree\", got 3"),
        ("{\"format\": \"svg\", \"cells\": []}", "format: expected \"flat\" or \"tree\", got \"svg\""),
        ("{\"cells\": {}}", "cells: expected an array of elements, got an object"),
        ("{\"cells\": null}", "cells: expected an array of elements, got null"),
        ("{\"cells\": [], \"colour\": 1}", "colour: unknown member of a page; expected \"width\", \"format\" or \"cells\""),
        ("{\"cells\": [3]}", nil),
    ])
    func badPageFieldsAre400NamingTheField(_ page: String, _ message: String?) async throws {
        try await withServer { client, _ in
            let response = try await client.layout(page)
            #expect(response.status == .badRequest)
            if let message {
                #expect(response.errorMessage == message)
            } else {
                #expect(response.errorMessage?.hasPrefix("cells[0]: ") == true, "\(response.errorMessage ?? "")")
            }
        }
    }

    @Test func aBodyOverTheSizeLimitIs413() async throws {
        try await withServer(testConfiguration { $0.maxBodyBytes = 1_000 }) { client, _ in
            let cells = (0..<40).map { Samples.box("b\($0)") }
            let page = Samples.page(cells)
            #expect(page.utf8.count > 1_000)
            let response = try await client.layout(page)
            #expect(response.status == .contentTooLarge)
            #expect(response.errorMessage == "the body is larger than the limit of 1000 bytes")
            // Just under the limit is fine.
            let small = Samples.page(Array(cells.prefix(10)))
            #expect(small.utf8.count < 1_000)
            #expect(try await client.layout(small).status == .ok)
        }
    }

    @Test func aBodyOverTheSizeLimitIs413OverHTTPToo() async throws {
        try await withServer(testConfiguration { $0.maxBodyBytes = 1_000 }, .live) { client, _ in
            let response = try await client.layout(String(repeating: " ", count: 5_000) + Samples.box("a"))
            #expect(response.status == .contentTooLarge)
            let health = try await client.execute(uri: "/health", method: .get)
            #expect(health.status == .ok)
        }
    }

    @Test func nestingDeeperThanTheLimitIs422() async throws {
        try await withServer(testConfiguration { $0.maxDepth = 64 }) { client, _ in
            // 63 insets around a box: 64 levels, accepted.
            #expect(try await client.layout(Samples.nestedInsets(63)).status == .ok)
            // 64 insets around a box: 65 levels.
            let response = try await client.layout(Samples.nestedInsets(64))
            #expect(response.status == .unprocessableContent)
            let message = try #require(response.errorMessage)
            #expect(message.hasSuffix("elements nested deeper than the limit of 64"), "\(message)")
            #expect(message.hasPrefix("root.child.child.child.child.("), "\(message)")
            // In a page too.
            let page = try await client.layout(Samples.page([Samples.box("a"), Samples.nestedInsets(64)]))
            #expect(page.status == .unprocessableContent)
            #expect(page.errorMessage?.hasPrefix("cells[1].child.child.child.child.(") == true)
        }
    }

    @Test func jsonNestedFarDeeperThanElementsCouldBeIs422() async throws {
        try await withServer(testConfiguration { $0.maxDepth = 64 }) { client, _ in
            let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
            let response = try await client.layout(deep)
            #expect(response.status == .unprocessableContent)
            #expect(response.errorMessage?.contains("nesting deeper than") == true)
        }
    }

    @Test func moreElementsThanTheLimitIs422() async throws {
        try await withServer(testConfiguration { $0.maxElements = 5 }) { client, _ in
            // Twelve elements in one document.
            let document = try await client.layout(Samples.photoCell(1))
            #expect(document.status == .unprocessableContent)
            #expect(document.errorMessage?.hasSuffix("more elements than the limit of 5") == true)
            // Three cells of two elements: each is fine alone, not together.
            let pair = "{\"type\": \"inset\", \"insets\": 1, \"child\": {\"type\": \"box\"}}"
            #expect(try await client.layout(Samples.page([pair, pair])).status == .ok)
            let response = try await client.layout(Samples.page([pair, pair, pair]))
            #expect(response.status == .unprocessableContent)
            #expect(response.errorMessage == "cells: more elements than the limit of 5 in all the cells together")
        }
    }

    @Test func moreCellsThanElementsAllowedAreRefusedAtOnce() async throws {
        try await withServer(testConfiguration { $0.maxElements = 100 }) { client, server in
            let response = try await client.layout(Samples.page(Array(repeating: "{\"type\": \"spacer\"}", count: 101)))
            #expect(response.status == .unprocessableContent)
            #expect(response.errorMessage == "cells: more elements than the limit of 100 in all the cells together")
            #expect(server.service.cache.statistics.misses == 0)  // refused before any lookup
        }
    }

    @Test func cachedCellsCountTowardsTheLimitToo() async throws {
        try await withServer(testConfiguration { $0.maxElements = 5 }) { client, server in
            let pair = "{\"type\": \"inset\", \"insets\": 1, \"child\": {\"type\": \"box\", \"id\": \"x\"}}"
            #expect(try await client.layout(Samples.page([pair, pair])).status == .ok)
            let before = server.service.cache.statistics
            // All three are cache hits now: still six elements.
            let response = try await client.layout(Samples.page([pair, pair, pair]))
            #expect(response.status == .unprocessableContent)
            #expect(server.service.cache.statistics.hits == before.hits + 3)
        }
    }

    @Test func aRequestOverItsTimeLimitIs503() async throws {
        try await withServer(testConfiguration { $0.timeout = .milliseconds(1); $0.maxElements = 100_000; $0.maxBodyBytes = 8 << 20 }) { client, _ in
            let page = Samples.page((0..<2_000).map(Samples.photoCell))
            let response = try await client.layout(page)
            #expect(response.status == .serviceUnavailable)
            #expect(response.errorMessage == "the layout took longer than the time limit of 0.001 s")
        }
    }

    @Test func noBodyCrashesTheServer() async throws {
        // Mutations of a valid page: bytes dropped, doubled, flipped, cut. Every answer is 200, 400 or 422.
        let original = Array(Samples.page([Samples.photoCell(3), Samples.twoBoxes, Samples.endRow]).utf8)
        var generator = SplitMix(seed: 42)
        var bodies: [[UInt8]] = []
        for _ in 0..<300 {
            var bytes = original
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let at = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 4 {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(bytes[at], at: at)
                case 2: bytes[at] = UInt8(truncatingIfNeeded: generator.next())
                default: bytes = Array(bytes.prefix(at))
                }
                if bytes.isEmpty { bytes = [UInt8(ascii: "{")] }
            }
            bodies.append(bytes)
        }
        try await withServer { [bodies] client, _ in
            for bytes in bodies {
                let response = try await client.execute(uri: "/v1/layout", method: .post, body: ByteBuffer(bytes: bytes))
                #expect([200, 400, 422].contains(response.status.code), "\(String(decoding: bytes, as: UTF8.self))")
                if response.status != .ok { #expect(response.errorMessage != nil) }
            }
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
        }
    }
}

/// A small deterministic random number generator for the mutation test.
struct SplitMix {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
