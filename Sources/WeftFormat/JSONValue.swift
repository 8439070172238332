import WeftLayout

/// A parsed JSON value. Objects keep their keys in document order.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A short rendering for error messages: strings quoted, containers summarized.
    public var summary: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return formatPoints(value)
        case .string(let value):
            let clipped = value.count > 40 ? value.prefix(40) + "..." : Substring(value)
            return "\"\(clipped)\""
        case .array(let values): return "an array of \(values.count)"
        case .object: return "an object"
        }
    }
}

extension JSONValue {
    /// `text` as a JSON string literal: in quotes, with quote, backslash and control characters escaped.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        appendQuoted(text, to: &out)
        out += "\""
        return out
    }

    /// Appends `text`'s escaped characters (without the quotes) to `out`.
    public static func appendQuoted(_ text: String, to out: inout String) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
    }
}

/// A JSON object: its members in document order, with lookup by key.
public struct JSONObject: Hashable, Sendable {
    public private(set) var keys: [String] = []
    public private(set) var values: [String: JSONValue] = [:]

    public init() {}

    /// Adds a member; returns false (and changes nothing) if the key is already present.
    @discardableResult
    public mutating func insert(_ key: String, _ value: JSONValue) -> Bool {
        guard values[key] == nil else { return false }
        keys.append(key)
        values[key] = value
        return true
    }

    public subscript(key: String) -> JSONValue? { values[key] }
}
