import Testing
import WeftFormat
import WeftLayout

/// Every class of bad input is refused with an error that names the place and the reason.
@Suite("Bad input")
struct BadInputTests {
    func decodeError(_ text: String) -> LayoutError? {
        do {
            _ = try LayoutDecoder().decode(text)
            return nil
        } catch {
            return error
        }
    }

    @Test("Malformed JSON names the line, column and enclosing path")
    func malformed() throws {
        let error = try #require(decodeError("{\"type\": \"stack\", \"children\": [\n  {\"type\": \"box\",, }\n]}"))
        #expect(error.kind == .malformed)
        #expect(error.path == "root.children[0]")
        #expect(error.reason.hasPrefix("malformed JSON at line 2, column 18: expected a member name in quotes, found ','"))
        #expect(decodeError("")?.reason.contains("expected a value, found the end of the text") == true)
        #expect(decodeError("{\"type\": \"box\"} x")?.reason.contains("unexpected text after the document") == true)
        #expect(decodeError("{\"type\": \"box\", \"type\": \"box\"}")?.reason.contains("duplicate member \"type\"") == true)
        #expect(decodeError("{\"type\": \"bo\\q\"}")?.reason.contains("unknown escape") == true)
        #expect(decodeError("[1e999]")?.reason.contains("out of range") == true)
    }

    @Test("An unknown element type is named, with a suggestion")
    func unknownType() throws {
        let error = try #require(decodeError(#"{"type": "stack", "children": [{"type": "box"}, {"type": "stak"}]}"#))
        #expect(error.path == "root.children[1].type")
        #expect(error.reason.hasPrefix("unknown element type \"stak\" (did you mean \"stack\"?)"))
        #expect(decodeError(#"{"id": "a"}"#)?.description == "root.type: missing; every element needs a \"type\"")
    }

    @Test("An unknown property is named, with a suggestion")
    func unknownProperty() throws {
        let error = try #require(decodeError(#"{"type": "box", "style": {"flexGrw": 1}}"#))
        #expect(error.path == "root.style.flexGrw")
        #expect(error.reason.hasPrefix("unknown property (did you mean \"flexGrow\"?)"))
        #expect(decodeError(#"{"type": "inset", "insets": 2, "child": {"type": "box"}, "childs": []}"#)?.path == "root.childs")
    }

    @Test("The example from the issue: a negative flexGrow")
    func negativeFlexGrow() {
        let text = #"{"type": "stack", "children": [{"type": "box"}, {"type": "box"}, {"type": "box", "style": {"flexGrow": -1}}]}"#
        #expect(decodeError(text)?.description == "root.children[2].style.flexGrow: expected a number >= 0, got -1")
    }

    @Test("NaN and negative sizes are refused")
    func nanAndNegative() {
        #expect(decodeError(#"{"type": "box", "style": {"width": "NaNpt"}}"#)?.description
            == "root.style.width: expected a number of points, got NaN")
        #expect(decodeError(#"{"type": "box", "style": {"height": -5}}"#)?.description
            == "root.style.height: expected a number of points >= 0, got -5")
        #expect(decodeError(#"{"type": "box", "size": [10, -1]}"#)?.description
            == "root.size[1]: expected a number >= 0, got -1")
        #expect(decodeError(#"{"type": "box", "style": {"maxWidth": "infpt"}}"#)?.description
            == "root.style.maxWidth: expected a finite number of points, got inf")
    }

    @Test("A style whose minimum is above its maximum is laid out: the minimum wins (ASLayoutElementSizeConstrain)")
    func styleMinAboveMax() throws {
        let text = #"{"type": "stack", "direction": "horizontal", "children": [{"type": "box", "style": "#
            + #"{"width": 60, "height": 125, "minWidth": 87, "maxWidth": 60}}, {"type": "box", "style": "#
            + #"{"minHeight": 50, "maxHeight": 10, "width": 3}}]}"#
        let document = try LayoutDecoder().decode(text)
        let layout = try Layout.compute(document.root, in: SizeRange(min: .zero, max: Size(300, 300)))
        // maxVal <= minVal: the minimum overrides both the maximum and the exact size. 87 x 125, then 3 x 50;
        // the stack is 87 + 3 wide and 125 high.
        #expect(layout.sublayouts.map(\.size) == [Size(87, 125), Size(3, 50)])
        #expect(layout.sublayouts[1].position == Point(x: 87, y: 0))
        #expect(layout.size == Size(90, 125))
    }

    @Test("A size range whose minimum is above its maximum is refused")
    func minAboveMax() throws {
        #expect(throws: LayoutError("min.height 20 is above max.height 10", path: "sizeRange")) {
            try SizeRange.validated(min: Size(0, 20), max: Size(100, 10))
        }
        #expect(throws: LayoutError("min.width is NaN", path: "sizeRange")) {
            try Layout.compute(Box(), in: SizeRange(min: Size(.nan, 0), max: Size(10, 10)))
        }
        #expect(throws: LayoutError("max.height is negative (-1)", path: "sizeRange")) {
            try Layout.compute(Box(), in: SizeRange(min: .zero, max: Size(10, -1)))
        }
    }

    @Test("A ratio <= 0 is refused")
    func ratio() {
        #expect(decodeError(#"{"type": "ratio", "ratio": 0, "child": {"type": "box"}}"#)?.description
            == "root.ratio: expected a ratio > 0, got 0")
        #expect(throws: LayoutError("expected a ratio > 0, got -2", path: "root.child.ratio")) {
            try Layout.compute(InsetSpec(insets: .zero, child: RatioSpec(ratio: -2, child: Box())), in: .unconstrained)
        }
    }

    @Test("A fraction outside [0, 1] is refused")
    func fraction() {
        #expect(decodeError(#"{"type": "box", "style": {"width": "150%"}}"#)?.description
            == "root.style.width: expected a percentage between 0% and 100%, got 150%")
        #expect(decodeError(#"{"type": "box", "style": {"flexBasis": "-1%"}}"#)?.description
            == "root.style.flexBasis: expected a percentage between 0% and 100%, got -1%")
        #expect(decodeError(#"{"type": "box", "style": {"width": "wide"}}"#)?.reason.hasPrefix("expected a dimension") == true)
    }

    @Test("A name too long to quote is clipped in the error, with no suggestion searched for; hexadecimal is no number")
    func longNamesAndHex() throws {
        let long = String(repeating: "k", count: 1000)
        let clipped = String(repeating: "k", count: 64) + "... (936 more characters)"
        let type = try #require(decodeError(#"{"type": ""# + long + #""}"#))
        #expect(type.path == "root.type")
        #expect(type.reason.hasPrefix("unknown element type \"\(clipped)\"; expected one of \"stack\""))
        let key = try #require(decodeError(#"{"type": "box", "style": {""# + long + #"": 1}}"#))
        #expect(key.path == "root.style.\(clipped)")
        #expect(key.reason.hasPrefix("unknown property; expected one of"))
        // Characters are Unicode scalars: one grapheme cluster of "a" and 1,000 combining accents is clipped too.
        let accents = "a" + String(repeating: "\u{301}", count: 1000)
        let accentsClipped = "a" + String(repeating: "\u{301}", count: 63) + "... (937 more characters)"
        #expect(decodeError(#"{"type": ""# + accents + #""}"#)?.reason.hasPrefix("unknown element type \"\(accentsClipped)\"") == true)
        // Duplicate ids and members, and keys on the way to an error, are clipped too.
        let id = #"{"type": "box", "id": ""# + long + #""}"#
        #expect(decodeError(#"{"type": "stack", "children": ["# + id + ", " + id + "]}")?.description
            == "root.children[1].id: duplicate id \"\(clipped)\", first used at root.children[0]")
        #expect(decodeError(#"{""# + long + #"": 1, ""# + long + #"": 2}"#)?.reason == "malformed JSON at line 1, column 1009: duplicate member \"\(clipped)\"")
        let under = try #require(decodeError(#"{""# + long + #"": [1, }"#))
        #expect(under.kind == .malformed)
        #expect(under.path == "root.\(clipped)[1]")
        // Short names are quoted whole, with their suggestion.
        #expect(decodeError(#"{"type": "stak"}"#)?.reason.hasPrefix("unknown element type \"stak\" (did you mean \"stack\"?)") == true)
        // `Double("0x10")` is 16; the format's numbers are decimal.
        #expect(decodeError(#"{"type": "box", "style": {"width": "0x10pt"}}"#)?.reason.hasPrefix("expected a dimension") == true)
        #expect(Dimension(parsing: "0x10") == nil)
        #expect(Dimension(parsing: "1e1pt") == .points(10))
    }

    @Test("Duplicate ids are refused, naming both places")
    func duplicateIDs() {
        #expect(decodeError(#"{"type": "stack", "children": [{"type": "box", "id": "a"}, {"type": "box", "id": "a"}]}"#)?.description
            == "root.children[1].id: duplicate id \"a\", first used at root.children[0]")
        // A first place deeper than 12 steps is named as error paths are shown, its first and last five steps (the
        // decoder keeps that much per id, not a path as long as the depth).
        let deep = String(repeating: #"{"type": "wrapper", "children": ["#, count: 14) + #"{"type": "box", "id": "x"}"#
            + String(repeating: "]}", count: 14)
        let first = "root" + String(repeating: ".children[0]", count: 4) + ".(6 more)" + String(repeating: ".children[0]", count: 5)
        #expect(decodeError(#"{"type": "stack", "children": ["# + deep + #", {"type": "box", "id": "x"}]}"#)?.description
            == "root.children[1].id: duplicate id \"x\", first used at \(first)")
    }

    @Test("Wrong JSON types and missing members are named")
    func wrongTypes() {
        #expect(decodeError(#"{"type": "stack", "direction": "diagonal"}"#)?.description
            == "root.direction: expected one of \"horizontal\", \"vertical\", got \"diagonal\"")
        #expect(decodeError(#"{"type": "stack", "children": {}}"#)?.description
            == "root.children: expected an array of elements, got an object")
        #expect(decodeError(#"{"type": "inset", "child": {"type": "box"}}"#)?.description
            == "root.insets: missing; an inset needs \"insets\"")
        #expect(decodeError(#"{"type": "overlay", "child": {"type": "box"}}"#)?.description
            == "root.overlay: missing; an overlay needs \"overlay\"")
        #expect(decodeError(#"[]"#)?.description == "root: expected an element (a JSON object), got an array of 0")
        #expect(decodeError(#"{"type": "inset", "insets": {"top": "infinite"}, "child": {"type": "box"}}"#)?.description
            == "root.insets.top: expected a number or \"inf\", got \"infinite\"")
    }

    @Test("Documents beyond the limits are refused as limits")
    func limits() throws {
        var text = #"{"type": "box"}"#
        for _ in 0..<20 { text = #"{"type": "wrapper", "children": ["# + text + "]}" }
        let decoder = LayoutDecoder(limits: LayoutDecoder.Limits(maxDepth: 10, maxElements: 100))
        #expect(throws: LayoutError.self) { try decoder.decode(text) }
        do {
            _ = try decoder.decode(text)
        } catch {
            #expect(error.kind == .limit)
        }
        let wide = #"{"type": "stack", "children": ["# + Array(repeating: #"{"type": "box"}"#, count: 200).joined(separator: ",") + "]}"
        do {
            _ = try decoder.decode(wide)
            Issue.record("200 elements passed a limit of 100")
        } catch {
            #expect(error.kind == .limit)
            #expect(error.reason == "more elements than the limit of 100")
        }
        let deepJSON = String(repeating: "[", count: 100_000)
        #expect(decodeError(deepJSON)?.reason.contains("nesting deeper than") == true)
    }

    @Test("Bad values in specs built in code are refused at layout time with their path")
    func codeBuiltSpecs() {
        var style = LayoutStyle()
        style.flexGrow = -1
        let stack = StackSpec(children: [Box(), Box(style: style)])
        #expect(throws: LayoutError("expected a number >= 0, got -1", path: "root.children[1].style.flexGrow")) {
            try Layout.compute(stack, in: .unconstrained)
        }
        let nanWidth = Box(style: LayoutStyle(width: .points(.nan)))
        #expect(throws: LayoutError("expected a number of points, got NaN", path: "root.child.style.width")) {
            try Layout.compute(CenterSpec(child: nanWidth), in: .unconstrained)
        }
        #expect(throws: LayoutError("expected a number or inf, got nan", path: "root.insets.left")) {
            try Layout.compute(InsetSpec(insets: EdgeInsets(left: .nan), child: Box()), in: .unconstrained)
        }
        #expect(throws: LayoutError(
            "an infinite inset needs a finite max width (below 1e7), but the range is 0x0...infxinf",
            path: "root.insets.left")) {
            try Layout.compute(InsetSpec(insets: EdgeInsets(left: .infinity), child: Box()), in: .unconstrained)
        }
        #expect(throws: LayoutError("expected a scale from 0.01 to 10000 pixels per point, got 0", path: "scale")) {
            try Layout.compute(Box(), in: .unconstrained, scale: 0)
        }
    }

    @Test("A box's size built in code is refused when it is NaN, negative or infinite, as the JSON format's is")
    func codeBuiltBoxSize() {
        // (Each was laid out without a word: NaN clamped to the range's max, -10 to 0, infinity to 0 in a stack.)
        let range = SizeRange(min: .zero, max: Size(100, 100))
        #expect(throws: LayoutError("expected a number of points, got NaN", path: "root.size.width")) {
            try Layout.compute(Box(size: Size(width: .nan, height: 10)), in: range)
        }
        #expect(throws: LayoutError("expected a number of points >= 0, got -10", path: "root.size.width")) {
            try Layout.compute(Box(size: Size(width: -10, height: 10)), in: range)
        }
        #expect(throws: LayoutError("expected a finite number of points, got inf", path: "root.children[1].size.height")) {
            try Layout.compute(StackSpec(children: [Box(), Box(size: Size(width: 10, height: .infinity))]), in: range)
        }
        var specs = SpecBuilder()
        let root = specs.stack(StackOptions(), children: specs.box(size: Size(4, 4)), specs.box(size: Size(width: 4, height: -1)))
        #expect(throws: LayoutError("expected a number of points >= 0, got -1", path: "root.children[1].size.height")) {
            try Layout.compute(specs.finish(root), in: range)
        }
        // Zero and large finite sizes are accepted. Below 1e7 they are recorded as they are; 1e30 is not a size
        // (ASPointsValidForSize needs points < 1e7), so ASLayout records 0x0, without an error.
        #expect((try? Layout.compute(Box(size: Size(0, 9_999_999)), in: .unconstrained).size) == Size(0, 9_999_999))
        #expect((try? Layout.compute(Box(size: Size(0, 1e30)), in: .unconstrained).size) == Size(0, 0))
    }

    /// Thousands of corrupted documents (bytes dropped, duplicated or replaced) never crash: each one either
    /// lays out or is refused with an error.
    @Test("Random corruption never crashes")
    func fuzz() throws {
        let source = """
        {"type": "stack", "id": "s", "direction": "vertical", "spacing": 4, "children": [
          {"type": "inset", "insets": {"top": 8, "left": "inf"}, "child": {"type": "box", "size": [10, 20]}},
          {"type": "ratio", "ratio": 0.5, "child": {"type": "box", "style": {"width": "50%", "flexGrow": 1}}},
          {"type": "corner", "location": "topLeft", "child": {"type": "box"}, "corner": {"type": "box", "size": [4, 4]}}
        ]}
        """
        let bytes = Array(source.utf8)
        let alphabet = Array("{}[]\",:-0123456789.eE infabc\\u".utf8)
        var rng = SeededGenerator(seed: 99)
        var laidOut = 0
        var refused = 0
        for _ in 0..<3000 {
            var mutated = bytes
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let i = Int.random(in: 0..<mutated.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: mutated.remove(at: i)
                case 1: mutated.insert(mutated[i], at: i)
                default: mutated[i] = alphabet.randomElement(using: &rng) ?? 0
                }
            }
            let text = String(decoding: mutated, as: UTF8.self)
            do {
                let document = try LayoutDecoder().decode(text)
                _ = try Layout.compute(document.root, in: SizeRange(min: .zero, max: Size(320, 480)))
                laidOut += 1
            } catch {
                #expect(!error.description.isEmpty)
                refused += 1
            }
        }
        #expect(laidOut + refused == 3000)
        #expect(refused > 0)
    }
}
