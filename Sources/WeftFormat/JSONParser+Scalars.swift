import WeftLayout

extension JSONParser.Cursor {
    /// An error at the cursor: `malformed JSON at line L, column C: reason` (or, for a limit, `at line L,
    /// column C: reason`). Counting lines reads the text up to the cursor: errors only, never on success.
    func failure(_ reason: String, kind: LayoutError.Kind = .malformed) -> LayoutError {
        if reason.hasPrefix("malformed JSON at ") { return LayoutError(reason, kind: kind) }
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
        let place = "at line \(line), column \(column): \(reason)"
        return LayoutError(kind == .malformed ? "malformed JSON " + place : place, kind: kind)
    }

    /// What is at the cursor, for error messages.
    var found: String {
        guard let byte = current else { return "the end of the text" }
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16))"
    }

    mutating func literal(_ word: StaticString, _ value: JSONValue, _ stack: [Open]) throws(LayoutError) -> JSONValue {
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

    mutating func number(_ stack: [Open]) throws(LayoutError) -> Double {
        do {
            return try number()
        } catch {
            throw failure(stack, error.reason)
        }
    }

    mutating func string(_ stack: [Open]) throws(LayoutError) -> String {
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
