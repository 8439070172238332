@testable import FeedServerCore
import Testing
import WeftFormat
import WeftLayout

/// The scanner that splits bodies into their cells' texts: what it splits, what it leaves to the full parse,
/// and that where it splits, it agrees with the full parse.
@Suite struct BodyScannerTests {
    @Test func aDocumentIsTakenWhole() {
        let split = BodyScanner.split("  \n" + Samples.twoBoxes + " \t")
        #expect(split == BodyScanner.Split(isPage: false, width: nil, format: nil, cells: [Samples.twoBoxes]))
    }

    @Test func aPageIsSplitIntoItsCellsTexts() {
        let page = "{\"format\": \"tree\", \"cells\": [ \(Samples.twoBoxes) ,\n\(Samples.endRow)], \"width\": 2.5e2}"
        let split = BodyScanner.split(page)
        #expect(split == BodyScanner.Split(isPage: true, width: 250, format: .tree, cells: [Samples.twoBoxes, Samples.endRow]))
        #expect(BodyScanner.split("{\"cells\": []}") == BodyScanner.Split(isPage: true, width: nil, format: nil, cells: []))
    }

    @Test func stringsWithBracketsAndEscapesDoNotConfuseIt() {
        let cell = #"{"type": "text", "id": "t", "text": "a } ] \" \\ [ { \u0041"}"#
        #expect(BodyScanner.split("{\"cells\": [\(cell), \(cell)]}")?.cells == [cell, cell])
    }

    @Test(arguments: [
        "", "[]", "3", "\"x\"", "{", "{\"type\": \"box\"} x", "{\"type\": \"box\",}", "{\"ty\\u0070e\": \"box\"}",
        "{\"cells\": [], \"cells\": []}", "{\"cells\": [], \"colour\": 1}", "{\"cells\": [1]}", "{\"cells\": {}}",
        "{\"cells\": [], \"width\": \"375\"}", "{\"cells\": [], \"width\": 0}", "{\"cells\": [], \"width\": 01}",
        "{\"cells\": [], \"width\": 1.}", "{\"cells\": [], \"format\": \"svg\"}", "{\"cells\": [], \"format\": \"fl\\u0061t\"}",
        "{\"cells\": [{}, ]}", "{\"cells\": [{}] ", "{\"cells\": [{\"a\": \"}]}",
    ])
    func bodiesOutOfThePlainShapeAreLeftToTheFullParse(_ body: String) {
        #expect(BodyScanner.split(body) == nil)
    }

    /// Splits `body` and parses each cell as the server does; nil if the scanner declines or a cell does not
    /// parse (the server then parses the whole body).
    static func fastPath(_ body: String, maxDepth: Int) -> (isPage: Bool, options: LayoutOptions, cells: [JSONValue])? {
        guard let split = BodyScanner.split(body) else { return nil }
        let input = LayoutInput(split, defaults: LayoutOptions())
        var cells: [JSONValue] = []
        for cell in input.cells {
            guard case .text(let text) = cell.content else { return nil }
            let depth = LayoutInput.jsonDepth(forElementDepth: maxDepth, isPageCell: input.isPage)
            guard let value = try? JSONParser(maxDepth: depth).parse(text) else { return nil }
            cells.append(value)
        }
        return (input.isPage, input.options, cells)
    }

    @Test func whereItSplitsItAgreesWithTheFullParse() throws {
        let original = Array(Samples.page([Samples.photoCell(3), Samples.twoBoxes, Samples.endRow], width: 320, format: "tree").utf8)
        var generator = SplitMix(seed: 7)
        var agreed = 0
        for _ in 0..<3_000 {
            var bytes = original
            for _ in 0..<(1 + Int(generator.next() % 3)) {
                let at = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 4 {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(bytes[at], at: at)
                case 2: bytes[at] = [UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "\""), UInt8(ascii: "\\"),
                                     UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: ":"), 0x20][Int(generator.next() % 8)]
                default: bytes.insert(UInt8(ascii: "["), at: at)
                }
                if bytes.isEmpty { bytes = [UInt8(ascii: "{")] }
            }
            let body = String(decoding: bytes, as: UTF8.self)
            let full = try? LayoutInput.parse(body, defaults: LayoutOptions(), parser: JSONParser(maxDepth: LayoutInput.jsonDepth(forElementDepth: 64)))
            guard let fast = Self.fastPath(body, maxDepth: 64) else { continue }
            let parsed = try #require(full, "the scanner accepted what the full parse refuses: \(body)")
            #expect(fast.isPage == parsed.isPage)
            #expect(fast.options == parsed.options)
            let cells = parsed.cells.map { cell -> JSONValue? in
                if case .parsed(let value) = cell.content { return value } else { return nil }
            }
            #expect(fast.cells == cells, "\(body)")
            agreed += 1
        }
        #expect(agreed > 100)  // plenty of mutations keep the body valid
    }
}
