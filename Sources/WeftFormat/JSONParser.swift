import WeftLayout

/// Parses JSON text (RFC 8259) with errors that give line, column and the path of the enclosing value.
///
/// The work is linear in the text's length. Hostile input is bounded three ways: nesting deeper than
/// ``maxDepth`` and containers wider than ``maxWidth`` are refused (kind `.limit`), and a caller that must
/// give up early (a deadline, a client gone) passes ``shouldStop``, which is asked every
/// ``stopCheckInterval`` values.
public struct JSONParser: Sendable {
    /// The deepest nesting of arrays and objects accepted.
    public var maxDepth: Int
    /// The most elements of one array, or members of one object, accepted (at least 1).
    public var maxWidth: Int
    /// Asked every ``stopCheckInterval`` values whether to give up; `true` ends the parse with an error of kind
    /// `.limit` whose reason is ``stoppedReason``. Nil (the default) costs one comparison per value.
    public var shouldStop: (@Sendable () -> Bool)?

    /// How many values are parsed between two calls of ``shouldStop``: a few microseconds of work.
    public static let stopCheckInterval = 1024
    /// The reason of the error a parse stopped by ``shouldStop`` throws.
    public static let stoppedReason = "parsing stopped before the end (the caller gave up: a deadline or a cancellation)"

    public init(maxDepth: Int = 4096, maxWidth: Int = .max, shouldStop: (@Sendable () -> Bool)? = nil) {
        self.maxDepth = maxDepth
        self.maxWidth = max(1, maxWidth)
        self.shouldStop = shouldStop
    }

    /// Parses a whole document: one value, surrounded only by whitespace.
    public func parse(_ text: String) throws(LayoutError) -> JSONValue {
        var copy = text
        let result: Result<JSONValue, LayoutError> = copy.withUTF8 { bytes in
            var cursor = Cursor(bytes: bytes, parser: self)
            do throws(LayoutError) {
                cursor.skipSpace()
                let value = try cursor.value()
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

    /// A position in the text being parsed.
    struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        let parser: JSONParser
        var offset = 0

        init(bytes: UnsafeBufferPointer<UInt8>, parser: JSONParser) {
            self.bytes = bytes
            self.parser = parser
        }

        var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                offset += 1
            }
        }

        /// A container still being read.
        ///
        /// Kept in the stack array and changed in place there (`stack[i].elements.append`), never copied out
        /// while it grows: a copy would share the elements' storage, and the next append would then copy all
        /// of it, making a wide container quadratic.
        struct Open {
            var isObject: Bool
            var elements: [JSONValue] = []
            var object = JSONObject()
            /// For an object, the member awaiting its value and where its name starts.
            var key = ""
            var keyOffset = 0
        }

        /// Parses one value without recursion (an explicit stack of open containers), so that nesting depth is
        /// bounded by `maxDepth`, not by the thread's stack.
        mutating func value() throws(LayoutError) -> JSONValue {
            var stack: [Open] = []
            var untilCheck = JSONParser.stopCheckInterval
            while true {
                if let shouldStop = parser.shouldStop {
                    untilCheck -= 1
                    if untilCheck == 0 {
                        untilCheck = JSONParser.stopCheckInterval
                        if shouldStop() { throw limit(stack, JSONParser.stoppedReason, inside: false) }
                    }
                }
                // Parse a value: a scalar, or the start of a container.
                skipSpace()
                guard let byte = current else { throw failure(stack, "expected a value, found \(found)") }
                var value: JSONValue
                switch byte {
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    guard stack.count < parser.maxDepth else {
                        throw limit(stack, "nesting deeper than \(parser.maxDepth) levels", inside: false)
                    }
                    offset += 1
                    skipSpace()
                    if byte == UInt8(ascii: "[") {
                        guard current == UInt8(ascii: "]") else {
                            stack.append(Open(isObject: false))
                            continue
                        }
                        offset += 1
                        value = .array([])
                    } else {
                        guard current == UInt8(ascii: "}") else {
                            let (key, keyOffset) = try memberName(stack)
                            stack.append(Open(isObject: true, key: key, keyOffset: keyOffset))
                            continue
                        }
                        offset += 1
                        value = .object(JSONObject())
                    }
                case UInt8(ascii: "\""): value = .string(try string(stack))
                case UInt8(ascii: "t"): value = try literal("true", .bool(true), stack)
                case UInt8(ascii: "f"): value = try literal("false", .bool(false), stack)
                case UInt8(ascii: "n"): value = try literal("null", .null, stack)
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try number(stack))
                default: throw failure(stack, "expected a value, found \(found)")
                }
                // Hand the value to the innermost open container; each one it completes becomes the next value.
                while let top = stack.indices.last {
                    skipSpace()
                    if stack[top].isObject {
                        let key = stack[top].key
                        guard stack[top].object.insert(key, value) else {
                            offset = stack[top].keyOffset
                            throw failure(stack, "duplicate member \"\(clippedForMessage(key))\"", inside: true)
                        }
                        if current == UInt8(ascii: ",") {
                            offset += 1
                            skipSpace()
                            guard stack[top].object.keys.count < parser.maxWidth else {
                                throw limit(stack, "more members than the limit of \(parser.maxWidth) in one object", inside: true)
                            }
                            (stack[top].key, stack[top].keyOffset) = try memberName(stack, replacingTop: true)
                            break
                        }
                        guard current == UInt8(ascii: "}") else {
                            throw failure(stack, "expected ',' or '}' after a member, found \(found)", inside: true)
                        }
                        offset += 1
                        value = .object(stack.removeLast().object)
                    } else {
                        stack[top].elements.append(value)
                        if current == UInt8(ascii: ",") {
                            offset += 1
                            skipSpace()
                            guard stack[top].elements.count < parser.maxWidth else {
                                throw limit(stack, "more elements than the limit of \(parser.maxWidth) in one array", inside: true)
                            }
                            break
                        }
                        guard current == UInt8(ascii: "]") else {
                            throw failure(stack, "expected ',' or ']' after an element, found \(found)", inside: true)
                        }
                        offset += 1
                        value = .array(stack.removeLast().elements)
                    }
                }
                if stack.isEmpty { return value }
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

        /// A refusal of kind `.limit` at the cursor, with the path of the open containers.
        private func limit(_ stack: [Open], _ reason: String, inside: Bool) -> LayoutError {
            failure(stack, reason, inside: inside, kind: .limit)
        }

        /// An error at the cursor, with the path of the open containers. `inside`: the innermost container's
        /// pending member (or next element) is not yet part of the path.
        func failure(_ stack: [Open], _ reason: String, inside: Bool = false, kind: LayoutError.Kind = .malformed) -> LayoutError {
            var error = failure(reason, kind: kind)
            var path = ""
            for (i, open) in stack.enumerated() where !(inside && i == stack.count - 1) {
                path += open.isObject ? "." + clippedForMessage(open.key) : "[\(open.elements.count)]"
            }
            if path.hasPrefix(".") { path.removeFirst() }
            if !path.isEmpty { error = error.within(path) }
            return error
        }
    }
}
