import WeftFormat
import WeftLayout

extension Scenarios {
    /// A layout document of `elements` elements in compact JSON: a vertical stack of `elements - 1` boxes, each
    /// with an id and a size. About 45 bytes an element.
    public static func wideDocument(elements: Int) -> String {
        var text = #"{"type":"stack","direction":"vertical","children":["#
        text.reserveCapacity(elements * 48 + 64)
        for i in 0..<max(0, elements - 1) {
            if i > 0 { text += "," }
            text += #"{"type":"box","id":"b\#(i)","size":[10,\#(i % 50)]}"#
        }
        text += "]}"
        return text
    }

    /// 9: parsing a wide document (`JSONParser`, no decoding), per element: the work a server does on every
    /// body before any limit on elements applies, so it must stay linear (issue 9 item 1).
    public static func parse(elements: Int, repetitions: Int) throws -> ScenarioResult {
        let text = wideDocument(elements: elements)
        let parser = JSONParser()
        let runs = try measure(repetitions: repetitions, setup: { () }) { _ in
            guard case .object(let root) = try parser.parse(text), case .array(let children)? = root["children"],
                  children.count == elements - 1 else {
                throw LayoutError("the wide document did not parse to \(elements - 1) children", path: "root")
            }
        }
        return ScenarioResult(id: "9-parse-\(elements)", name: "parse a wide document of \(elements) elements",
                              unit: "element", items: elements, runs: runs)
    }
}
