import FeedServerCore
import Foundation
import HummingbirdTesting
import Testing

/// `POST /v1/layout` answering documents and pages, with frames worked out by hand.
@Suite struct LayoutEndpointTests {
    @Test func aDocumentAnswersWhatWeftLayoutPrintsInTheFlatFormat() async throws {
        try await withServer { client, _ in
            let response = try await client.layout(Samples.twoBoxes, query: "?width=320")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            #expect(response.text == """
                {
                  "s": [0, 0, 320, 60],
                  "a": [0, 0, 100, 20],
                  "b": [0, 30, 50, 30]
                }

                """)
        }
    }

    @Test func theWidthDefaultsTo375() async throws {
        try await withServer { client, _ in
            let response = try await client.layout(Samples.twoBoxes)
            #expect(response.flatFrames?["s"] == [0, 0, 375, 60])
        }
    }

    @Test func theHeightIsUnbounded() async throws {
        try await withServer { client, _ in
            // A box without a size measures 0x0 when its range is not finite both ways; one of 50 x 2000
            // keeps its height: nothing caps the range's height.
            let response = try await client.layout(Samples.box("tall", width: 50, height: 2000), query: "?width=100")
            #expect(response.flatFrames == ["tall": [0, 0, 100, 2000]])
        }
    }

    @Test func theDocumentedToolbarExampleGivesTheDocumentedFrames() async throws {
        // docs/layout-format.md, "A toolbar: spaceBetween", laid out at 320 wide.
        let toolbar = """
            {"type": "stack", "id": "bar", "justifyContent": "spaceBetween", "alignItems": "center",
             "children": [{"type": "box", "id": "back", "size": [44, 44]}, {"type": "box", "id": "title", "size": [120, 20]},
                          {"type": "box", "id": "more", "size": [44, 44]}]}
            """
        try await withServer { client, _ in
            let response = try await client.layout(toolbar, query: "?width=320&format=flat")
            #expect(response.text == """
                {
                  "bar": [0, 0, 320, 44],
                  "back": [0, 0, 44, 44],
                  "title": [100, 12, 120, 20],
                  "more": [276, 0, 44, 44]
                }

                """)
        }
    }

    @Test func theTreeFormatAnswersTheLayoutTree() async throws {
        try await withServer { client, _ in
            let response = try await client.layout(Samples.twoBoxes, query: "?width=320&format=tree")
            #expect(response.status == .ok)
            let root = try #require(response.json as? [String: Any])
            #expect(root["type"] as? String == "stack")
            #expect(root["id"] as? String == "s")
            #expect((root["frame"] as? [Double]) == [0, 0, 320, 60])
            let children = try #require(root["children"] as? [[String: Any]])
            #expect(children.map { $0["type"] as? String } == ["box", "box"])
            #expect(children.map { $0["id"] as? String } == ["a", "b"])
            #expect(children.map { $0["frame"] as? [Double] } == [[0, 0, 100, 20], [0, 30, 50, 30]])
        }
    }

    @Test func aPageAnswersEveryCellInOrder() async throws {
        try await withServer { client, _ in
            let page = Samples.page([Samples.twoBoxes, Samples.endRow, Samples.box("c")], width: 200, format: "flat")
            let response = try await client.layout(page)
            #expect(response.status == .ok)
            #expect(response.pageFrames == [
                ["s": [0, 0, 200, 60], "a": [0, 0, 100, 20], "b": [0, 30, 50, 30]],
                ["row": [0, 0, 200, 20], "p": [125, 0, 30, 10], "q": [160, 0, 40, 20]],
                ["c": [0, 0, 200, 10]],
            ])
            // Each cell's output is embedded as rendered, not re-serialized.
            #expect(response.text.hasPrefix("{\"cells\": [\n{\n  \"s\": [0, 0, 200, 60],\n  \"a\""))
        }
    }

    @Test func aPageInTheTreeFormat() async throws {
        try await withServer { client, _ in
            let response = try await client.layout(Samples.page([Samples.endRow], width: 200, format: "tree"))
            let cells = try #require((response.json as? [String: Any])?["cells"] as? [[String: Any]])
            #expect(cells.count == 1)
            #expect(cells[0]["frame"] as? [Double] == [0, 0, 200, 20])
            let children = try #require(cells[0]["children"] as? [[String: Any]])
            #expect(children.map { $0["frame"] as? [Double] } == [[125, 0, 30, 10], [160, 0, 40, 20]])
        }
    }

    @Test func aPageTakesTheQueryForWhatItDoesNotSay() async throws {
        try await withServer { client, _ in
            let fromQuery = try await client.layout(Samples.page([Samples.box("c")]), query: "?width=90")
            #expect(fromQuery.pageFrames == [["c": [0, 0, 90, 10]]])
            let fromPage = try await client.layout(Samples.page([Samples.box("c")], width: 60), query: "?width=90")
            #expect(fromPage.pageFrames == [["c": [0, 0, 60, 10]]])
        }
    }

    @Test func anEmptyPageAnswersNoCells() async throws {
        try await withServer { client, _ in
            let response = try await client.layout("{\"cells\": []}")
            #expect(response.status == .ok)
            #expect((response.json as? [String: Any])?["cells"] as? [Any] != nil)
            #expect(response.pageFrames == [])
        }
    }

    @Test func photoCellsWithTextAndImagesLayOut() async throws {
        try await withServer { client, _ in
            let response = try await client.layout(Samples.page((0..<20).map(Samples.photoCell)), query: "?format=tree")
            #expect(response.status == .ok)
            let cells = try #require((response.json as? [String: Any])?["cells"] as? [[String: Any]])
            #expect(cells.count == 20)
            for cell in cells {
                let frame = try #require(cell["frame"] as? [Double])
                // Header (44 + 8 + 8 = 60), photo 375, footer 8 + text + 8: always more than 443.
                #expect(frame[2] == 375 && frame[3] > 443)
            }
        }
    }

    @Test func theLiveServerAnswersOverHTTP() async throws {
        try await withServer(testConfiguration(), .live) { client, _ in
            let response = try await client.layout(Samples.twoBoxes, query: "?width=320")
            #expect(response.status == .ok)
            #expect(response.flatFrames == ["s": [0, 0, 320, 60], "a": [0, 0, 100, 20], "b": [0, 30, 50, 30]])
        }
    }
}
