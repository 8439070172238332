import Foundation
import Testing
import WeftFormat
import WeftLayout

/// One layout fixture: a document, a size range, and the frame every id must get.
///
/// Fixture files live in `Fixtures/`, one JSON object each:
/// `{"description": "...", "sizeRange": {"min": [w, h], "max": [w, h]}, "scale": 2, "layout": {...},
/// "expected": {"id": [x, y, width, height], ...}}`. A max side may be `"inf"`; `scale` is optional (2).
/// Expected frames are in the root's coordinates and must name every id in the layout. The numbers come
/// from working through the documented semantics by hand (the description shows the arithmetic), never from
/// the engine's output. A file whose name starts with `x` is skipped.
struct Fixture: CustomTestStringConvertible, Sendable {
    let name: String
    let url: URL

    var testDescription: String { name }

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static var all: [Fixture] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix("x") }.sorted().map {
            Fixture(name: String($0.dropLast(5)), url: directory.appendingPathComponent($0))
        }
    }
}

struct FixtureCase {
    var range: SizeRange
    var scale: Double
    var document: LayoutDocument
    var expected: [String: Rect]

    init(_ fixture: Fixture) throws {
        let text = try String(contentsOf: fixture.url, encoding: .utf8)
        guard case .object(let object) = try JSONParser().parse(text) else {
            throw LayoutError("a fixture is a JSON object", path: fixture.name)
        }
        func pair(_ value: JSONValue?) throws -> Size {
            guard case .array(let items)? = value, items.count == 2 else {
                throw LayoutError("expected [w, h]", path: fixture.name)
            }
            func side(_ v: JSONValue) throws -> Double {
                switch v {
                case .number(let n): return n
                case .string("inf"): return .infinity
                default: throw LayoutError("expected a number or \"inf\"", path: fixture.name)
                }
            }
            return Size(width: try side(items[0]), height: try side(items[1]))
        }
        guard case .object(let rangeObject)? = object["sizeRange"] else {
            throw LayoutError("missing sizeRange", path: fixture.name)
        }
        range = try SizeRange.validated(min: try pair(rangeObject["min"]), max: try pair(rangeObject["max"]))
        if case .number(let s)? = object["scale"] { scale = s } else { scale = 2 }
        guard let layout = object["layout"] else { throw LayoutError("missing layout", path: fixture.name) }
        document = try LayoutDecoder().decode(layout)
        guard case .object(let expectedObject)? = object["expected"] else {
            throw LayoutError("missing expected", path: fixture.name)
        }
        var expected: [String: Rect] = [:]
        for key in expectedObject.keys {
            guard case .array(let items)? = expectedObject[key], items.count == 4 else {
                throw LayoutError("expected [x, y, w, h]", path: "\(fixture.name).expected.\(key)")
            }
            var numbers: [Double] = []
            for item in items {
                guard case .number(let n) = item else {
                    throw LayoutError("expected numbers", path: "\(fixture.name).expected.\(key)")
                }
                numbers.append(n)
            }
            expected[key] = Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        }
        self.expected = expected
    }
}

@Suite("Layout fixtures")
struct FixtureTests {
    @Test("There are many fixtures")
    func count() {
        #expect(Fixture.all.count >= 80)
    }

    @Test("Fixture lays out as expected", arguments: Fixture.all)
    func fixture(_ fixture: Fixture) throws {
        let fixtureCase = try FixtureCase(fixture)
        #expect(Set(fixtureCase.expected.keys) == Set(fixtureCase.document.identifiers),
                "expected frames must name exactly the ids in the layout")
        let layout = try Layout.compute(fixtureCase.document.root, in: fixtureCase.range, scale: fixtureCase.scale)
        var actual: [String: Rect] = [:]
        for entry in layout.allFrames() {
            if let id = entry.element.identifier { actual[id] = entry.frame }
        }
        for id in fixtureCase.document.identifiers {
            let want = fixtureCase.expected[id]
            let got = actual[id]
            #expect(got == want, "\(id): expected \(want.map { "\($0)" } ?? "-"), got \(got.map { "\($0)" } ?? "-")")
        }
    }
}
