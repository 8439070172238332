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

/// Parses JSON text (RFC 8259) with errors that give line, column and the path of the enclosing value.
///
/// Nesting deeper than `maxDepth` is refused rather than risking the thread's stack.
public struct JSONParser {
    public var maxDepth: Int

    public init(maxDepth: Int = 4096) {
        self.maxDepth = maxDepth
    }

    /// Parses a whole document: one value, surrounded only by whitespace.
    public func parse(_ text: String) throws(LayoutError) -> JSONValue {
        var copy = text
        let result: Result<JSONValue, LayoutError> = copy.withUTF8 { bytes in
            var cursor = Cursor(bytes: bytes, maxDepth: maxDepth)
            do throws(LayoutError) {
                cursor.skipSpace()
                let value = try cursor.value(depth: 0)
                cursor.skipSpace()
                if cursor.offset < bytes.count {
                    throw cursor.failure("unexpected text after the document")
                }
                return .success(value)
            } catch {
                return .failure(error.within("root"))
            }
        }
        return try result.get()
    }

    struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        var offset = 0

        init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
        }

        func failure(_ reason: String) -> LayoutError {
            var line = 1
            var column = 1
            for i in 0..<min(offset, bytes.count) {
                if bytes[i] == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if bytes[i] & 0xC0 != 0x80 {
                    column += 1
                }
            }
            if reason.hasPrefix("malformed JSON at ") { return LayoutError(reason, kind: .malformed) }
            return LayoutError("malformed JSON at line \(line), column \(column): \(reason)", kind: .malformed)
        }

        var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                offset += 1
            }
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws(LayoutError) {
            guard current == byte else { throw failure("expected \(what), found \(found)") }
            offset += 1
        }

        var found: String {
            guard let byte = current else { return "the end of the text" }
            if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
            return "byte 0x\(String(byte, radix: 16))"
        }

        /// An open container while parsing: its values so far and, for an object, the member awaiting a value.
        private enum Open {
            case array([JSONValue])
            case object(JSONObject, key: String, keyOffset: Int)
        }

        /// Parses one value without recursion (an explicit stack of open containers), so that nesting depth is
        /// bounded by `maxDepth`, not by the thread's stack.
        mutating func value(depth: Int) throws(LayoutError) -> JSONValue {
            var stack: [Open] = []
            while true {
                // Parse a value: a scalar, or the start of a container.
                skipSpace()
                guard let byte = current else { throw failure(stack, "expected a value, found \(found)") }
                var value: JSONValue
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard stack.count < maxDepth else {
                        var error = failure(stack, "nesting deeper than \(maxDepth) levels")
                        error.kind = .limit
                        throw error
                    }
                    offset += 1
                    skipSpace()
                    if byte == UInt8(ascii: "[") {
                        if current == UInt8(ascii: "]") {
                            offset += 1
                            value = .array([])
                        } else {
                            stack.append(.array([]))
                            continue
                        }
                    } else {
                        if current == UInt8(ascii: "}") {
                            offset += 1
                            value = .object(JSONObject())
                        } else {
                            let (key, keyOffset) = try memberName(stack)
                            stack.append(.object(JSONObject(), key: key, keyOffset: keyOffset))
                            continue
                        }
                    }
                case UInt8(ascii: "\""): value = .string(try string(stack))
                case UInt8(ascii: "t"): value = try literal("true", .bool(true), stack)
                case UInt8(ascii: "f"): value = try literal("false", .bool(false), stack)
                case UInt8(ascii: "n"): value = try literal("null", .null, stack)
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try number(stack))
                default: throw failure(stack, "expected a value, found \(found)")
                }
                // Hand the value to the containers it completes.
                while true {
                    guard let top = stack.popLast() else { return value }
                    skipSpace()
                    switch top {
                    case .array(var values):
                        values.append(value)
                        if current == UInt8(ascii: ",") {
                            offset += 1
                            stack.append(.array(values))
                        } else if current == UInt8(ascii: "]") {
                            offset += 1
                            value = .array(values)
                            continue
                        } else {
                            stack.append(.array(values))
                            throw failure(stack, "expected ',' or ']' after an element, found \(found)", inside: true)
                        }
                    case .object(var object, let key, let keyOffset):
                        if !object.insert(key, value) {
                            offset = keyOffset
                            stack.append(.object(object, key: key, keyOffset: keyOffset))
                            throw failure(stack, "duplicate member \"\(key)\"", inside: true)
                        }
                        if current == UInt8(ascii: ",") {
                            offset += 1
                            skipSpace()
                            stack.append(.object(object, key: key, keyOffset: keyOffset))
                            let (next, nextOffset) = try memberName(stack, replacingTop: true)
                            stack[stack.count - 1] = .object(object, key: next, keyOffset: nextOffset)
                        } else if current == UInt8(ascii: "}") {
                            offset += 1
                            value = .object(object)
                            continue
                        } else {
                            stack.append(.object(object, key: key, keyOffset: keyOffset))
                            throw failure(stack, "expected ',' or '}' after a member, found \(found)", inside: true)
                        }
                    }
                    break
                }
            }
        }

        /// `"name" :` at the cursor.
        private mutating func memberName(_ stack: [Open], replacingTop: Bool = false) throws(LayoutError) -> (String, Int) {
            guard current == UInt8(ascii: "\"") else {
                throw failure(stack, "expected a member name in quotes, found \(found)", inside: replacingTop)
            }
            let keyOffset = offset
            let key = try string(stack)
            skipSpace()
            guard current == UInt8(ascii: ":") else {
                throw failure(stack, "expected ':' after the member name, found \(found)", inside: replacingTop)
            }
            offset += 1
            return (key, keyOffset)
        }

        /// An error at the cursor, with the path of the open containers. `inside`: the innermost container's
        /// pending member (or next element) is not yet part of the path.
        private func failure(_ stack: [Open], _ reason: String, inside: Bool = false) -> LayoutError {
            var error = failure(reason)
            var path = ""
            for (i, open) in stack.enumerated() {
                let innermost = i == stack.count - 1
                switch open {
                case .array(let values):
                    if !(innermost && inside) { path += "[\(values.count)]" }
                case .object(_, let key, _):
                    if !(innermost && inside) { path += "." + key }
                }
            }
            if path.hasPrefix(".") { path.removeFirst() }
            if !path.isEmpty { error = error.within(path) }
            return error
        }

        private mutating func literal(_ word: StaticString, _ value: JSONValue, _ stack: [Open]) throws(LayoutError) -> JSONValue {
            let count = word.utf8CodeUnitCount
            let text = word.utf8Start
            for i in 0..<count {
                guard offset + i < bytes.count, bytes[offset + i] == text[i] else {
                    throw failure(stack, "expected a value, found \(found)")
                }
            }
            offset += count
            return value
        }

        private mutating func number(_ stack: [Open]) throws(LayoutError) -> Double {
            do {
                return try number()
            } catch {
                throw failure(stack, error.reason)
            }
        }

        private mutating func string(_ stack: [Open]) throws(LayoutError) -> String {
            do {
                return try string()
            } catch {
                throw failure(stack, error.reason)
            }
        }

        mutating func number() throws(LayoutError) -> Double {
            let start = offset
            if current == UInt8(ascii: "-") { offset += 1 }
            guard let first = current, first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9") else {
                throw failure("expected a digit, found \(found)")
            }
            if first == UInt8(ascii: "0") {
                offset += 1
            } else {
                skipDigits()
            }
            if current == UInt8(ascii: ".") {
                offset += 1
                guard isDigit else { throw failure("expected a digit after '.', found \(found)") }
                skipDigits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                offset += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
                guard isDigit else { throw failure("expected a digit in the exponent, found \(found)") }
                skipDigits()
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                offset = start
                throw failure("number \(text) is out of range")
            }
            return value
        }

        var isDigit: Bool {
            guard let byte = current else { return false }
            return byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }

        mutating func skipDigits() {
            while isDigit { offset += 1 }
        }

        mutating func string() throws(LayoutError) -> String {
            offset += 1
            // Runs without escapes are copied as whole UTF-8 slices; escapes are appended one by one.
            var result = ""
            var runStart = offset
            while true {
                guard let byte = current else { throw failure("unterminated string") }
                if byte == UInt8(ascii: "\"") {
                    if offset > runStart {
                        result += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<offset]), as: UTF8.self)
                    }
                    offset += 1
                    return result
                }
                if byte < 0x20 { throw failure("control character in a string; escape it") }
                if byte == UInt8(ascii: "\\") {
                    if offset > runStart {
                        result += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<offset]), as: UTF8.self)
                    }
                    offset += 1
                    result.unicodeScalars.append(try escape())
                    runStart = offset
                    continue
                }
                offset += 1
            }
        }

        mutating func escape() throws(LayoutError) -> Unicode.Scalar {
            guard let byte = current else { throw failure("unterminated string") }
            offset += 1
            switch byte {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let high = try hex4()
                if (0xD800...0xDBFF).contains(high) {
                    guard current == UInt8(ascii: "\\") else { throw failure("unpaired surrogate \\u\(String(high, radix: 16))") }
                    offset += 1
                    guard current == UInt8(ascii: "u") else { throw failure("unpaired surrogate \\u\(String(high, radix: 16))") }
                    offset += 1
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low),
                          let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else {
                        throw failure("invalid surrogate pair")
                    }
                    return scalar
                }
                guard let scalar = Unicode.Scalar(high) else { throw failure("unpaired surrogate \\u\(String(high, radix: 16))") }
                return scalar
            default:
                offset -= 1
                throw failure("unknown escape \\\(Character(Unicode.Scalar(byte)))")
            }
        }

        mutating func hex4() throws(LayoutError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = current else { throw failure("unterminated \\u escape") }
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw failure("expected a hex digit in \\u escape, found \(found)")
                }
                value = value * 16 + digit
                offset += 1
            }
            return value
        }
    }
}
