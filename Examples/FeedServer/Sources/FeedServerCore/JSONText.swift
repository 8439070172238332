import WeftFormat
import WeftLayout

/// Writing JSON text: string literals for error bodies, and the canonical form of a cell used as its cache key.
enum JSONText {
    /// The error body of a refused request: `{"error": "..."}`.
    static func errorBody(_ message: String) -> String {
        "{\"error\": \(JSONValue.quoted(message))}\n"
    }
}

extension JSONValue {
    /// The value as compact JSON: no whitespace, members in document order, numbers written the same way
    /// whatever their spelling (`1`, `1.0` and `1e0` are all `1`).
    ///
    /// Two cells with the same canonical text decode to the same elements, so it serves as a cache key. It
    /// recurses once per nesting level: call it on a layout thread.
    var canonicalText: String {
        var out = ""
        appendCanonical(to: &out)
        return out
    }

    private func appendCanonical(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let value):
            if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
                out += String(Int64(value))
            } else {
                out += String(describing: value)
            }
        case .string(let value):
            out += "\""
            JSONValue.appendQuoted(value, to: &out)
            out += "\""
        case .array(let values):
            out += "["
            for (i, value) in values.enumerated() {
                if i > 0 { out += "," }
                value.appendCanonical(to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (i, key) in object.keys.enumerated() {
                if i > 0 { out += "," }
                out += "\""
                JSONValue.appendQuoted(key, to: &out)
                out += "\":"
                (object[key] ?? .null).appendCanonical(to: &out)
            }
            out += "}"
        }
    }
}
