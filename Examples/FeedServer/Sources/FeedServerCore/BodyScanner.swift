/// Splits a request body into its cells' JSON text without parsing the cells: the fast path that lets a
/// cached cell be answered without being parsed at all.
///
/// It reads only the body's outer structure: a document (any object without a `cells` member, taken whole),
/// or a page (`width`, `format` and `cells`, each at most once). A cell's text is found by matching brackets
/// and skipping strings, and is validated later, by parsing it, only if the cache misses; a hit's text is
/// byte for byte that of a cell parsed and laid out before. So a body split here is valid JSON exactly when
/// each of its cells is, and means what the full parse (``LayoutInput/parse(_:defaults:parser:)``)
/// would make of it.
///
/// Anything out of the plain shape (not an object, a member name with an escape, a duplicate or unknown page
/// member, a page field with a bad value, a cell that is not an object, text after the end) gives nil: the
/// caller then parses the whole body, which gives the exact error message.
enum BodyScanner {
    struct Split: Equatable {
        var isPage: Bool
        var width: Double?
        var format: OutputFormat?
        /// Each cell's text (for a document, the whole body less surrounding whitespace).
        var cells: [String]
    }

    static func split(_ text: String) -> Split? {
        var copy = text
        return copy.withUTF8 { bytes in
            var scanner = Scanner(bytes: bytes)
            return scanner.body()
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
        }

        mutating func expect(_ byte: UInt8) -> Bool {
            skipSpace()
            guard current == byte else { return false }
            offset += 1
            return true
        }

        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        mutating func body() -> Split? {
            skipSpace()
            let start = offset
            guard expect(UInt8(ascii: "{")) else { return nil }
            var members: [(name: String, value: Range<Int>)] = []
            var cells: [String]?
            if !expect(UInt8(ascii: "}")) {
                repeat {
                    skipSpace()
                    guard let name = plainString(), expect(UInt8(ascii: ":")) else { return nil }
                    skipSpace()
                    let valueStart = offset
                    if name == "cells" {
                        // Split right away: one pass over the cells' bytes.
                        guard cells == nil, let split = cellArray() else { return nil }
                        cells = split
                    } else {
                        guard skipValue() != nil else { return nil }
                    }
                    members.append((name, valueStart..<offset))
                } while expect(UInt8(ascii: ","))
                guard expect(UInt8(ascii: "}")) else { return nil }
            }
            let end = offset
            skipSpace()
            guard offset == bytes.count else { return nil }
            guard let cells else {
                return Split(isPage: false, width: nil, format: nil, cells: [text(start..<end)])
            }
            var split = Split(isPage: true, width: nil, format: nil, cells: cells)
            var seen: Set<String> = []
            for member in members {
                guard seen.insert(member.name).inserted else { return nil }
                switch member.name {
                case "width":
                    guard let width = number(member.value), LayoutOptions.accepts(width) else { return nil }
                    split.width = width
                case "format":
                    offset = member.value.lowerBound
                    guard let name = plainString(), offset == member.value.upperBound,
                          let format = OutputFormat(rawValue: name) else { return nil }
                    split.format = format
                case "cells":
                    break  // split above
                default:
                    return nil
                }
            }
            return split
        }

        /// `[cell, cell, ...]`, every cell an object, as the cells' texts.
        mutating func cellArray() -> [String]? {
            guard expect(UInt8(ascii: "[")) else { return nil }
            var cells: [String] = []
            if expect(UInt8(ascii: "]")) { return cells }
            repeat {
                skipSpace()
                guard current == UInt8(ascii: "{"), let cell = skipValue() else { return nil }
                cells.append(text(cell))
            } while expect(UInt8(ascii: ","))
            guard expect(UInt8(ascii: "]")) else { return nil }
            return cells
        }

        /// A string without escapes or control characters; nil for anything else.
        mutating func plainString() -> String? {
            guard current == UInt8(ascii: "\"") else { return nil }
            let start = offset + 1
            var i = start
            while i < bytes.count {
                let byte = bytes[i]
                if byte == UInt8(ascii: "\"") {
                    offset = i + 1
                    return text(start..<i)
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                i += 1
            }
            return nil
        }

        /// Skips one value, returning where it lies: containers by matching brackets (strings skipped,
        /// nothing else checked), scalars up to the next delimiter.
        mutating func skipValue() -> Range<Int>? {
            let start = offset
            guard let first = current else { return nil }
            switch first {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                // The hot loop of the fast path: one pass over the cell's bytes, no bounds checks but `i < n`.
                guard let base = bytes.baseAddress else { return nil }
                let n = bytes.count
                var i = offset
                var depth = 0
                while i < n {
                    let byte = base[i]
                    i += 1
                    if byte == UInt8(ascii: "\"") {
                        var closed = false
                        while i < n {
                            let inner = base[i]
                            i += inner == UInt8(ascii: "\\") ? 2 : 1
                            if inner == UInt8(ascii: "\"") {
                                closed = true
                                break
                            }
                        }
                        guard closed else { return nil }
                    } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                        depth += 1
                    } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                        depth -= 1
                        if depth == 0 {
                            offset = i
                            return start..<i
                        }
                    }
                }
                return nil
            case UInt8(ascii: "\""):
                return skipString() ? start..<offset : nil
            default:
                while let byte = current, !Self.delimiters.contains(byte) { offset += 1 }
                return offset > start ? start..<offset : nil
            }
        }

        static let delimiters: Set<UInt8> = [0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")]

        /// Skips a string (at its opening quote), escapes included.
        mutating func skipString() -> Bool {
            offset += 1
            while let byte = current {
                offset += byte == UInt8(ascii: "\\") ? 2 : 1
                if byte == UInt8(ascii: "\"") { return true }
            }
            return false
        }

        /// A number in JSON's grammar, or nil.
        func number(_ range: Range<Int>) -> Double? {
            var i = range.lowerBound
            func digits() -> Int {
                let start = i
                while i < range.upperBound, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
                return i - start
            }
            if i < range.upperBound, bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < range.upperBound else { return nil }
            if bytes[i] == UInt8(ascii: "0") { i += 1 } else if digits() == 0 { return nil }
            if i < range.upperBound, bytes[i] == UInt8(ascii: ".") {
                i += 1
                guard digits() > 0 else { return nil }
            }
            if i < range.upperBound, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < range.upperBound, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { return nil }
            }
            guard i == range.upperBound else { return nil }
            return Double(text(range))
        }
    }
}
