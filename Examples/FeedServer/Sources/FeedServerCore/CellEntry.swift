import WeftFormat

/// How a cell is stored in the shared cache: a header line, then the cell's key text and its output.
///
/// ```
/// WEFT<format version> <engine version> <elements> <key bytes> <output bytes> <checksum>\n<key><output>
/// ```
///
/// The checksum is FNV-1a 64 (16 hex digits) of the header up to the checksum (its space included), then the
/// key and output bytes: every header field is covered. Entries are untrusted input (anyone who can write to
/// Redis can write one, checksum included), so reading checks, in order: the header's shape (counts in plain
/// decimal digits), the versions, the length (a short entry is `truncated`; no arithmetic on the lengths can
/// overflow), the checksum, that the key is the one asked for (keys are hashes: a collision reads as a miss,
/// not as another cell), that the element count is at least 1 and at most the objects the key's text holds
/// (every element is a JSON object of the cell's text), and that the output is one JSON object.
public enum CellEntry {
    /// The version of this encoding.
    public static let formatVersion = 2
    /// The version of the layout engine whose output is stored: change it whenever the engine's output can
    /// change. Redis keys are namespaced by it too (``SharedCellCache/namespace``).
    public static let engineVersion = "weft-13"

    /// Why a stored entry was not used.
    public enum Problem: String, Error, Sendable, CaseIterable {
        /// The header is not of the expected shape.
        case header
        /// Written by another format or engine version.
        case version
        /// Shorter (or longer) than its header says.
        case truncated
        /// The bytes do not match their checksum.
        case checksum
        /// Another cell's entry under the same hashed key.
        case key
        /// An element count the cell cannot hold: 0, or more than the JSON objects of its text.
        case elements
        /// An output that is not one JSON object (as both output formats are).
        case output
    }

    /// The deepest JSON nesting an output can have: the `tree` format nests two levels per element level (an
    /// element's object, then its `children` array or `frame`), for elements as deep as a server may allow.
    public static let maxOutputDepth = 2 * FeedServerConfiguration.deepestAllowed

    /// The entry for `cell`, whose key text is `key`.
    public static func encode(key: String, _ cell: CachedCell, engine: String = engineVersion) -> [UInt8] {
        let keyBytes = Array(key.utf8)
        let outputBytes = Array(cell.output.utf8)
        let fields = Array("WEFT\(formatVersion) \(engine) \(cell.elementCount) \(keyBytes.count) \(outputBytes.count) ".utf8)
        var hash = FNV1a64()
        hash.add(fields)
        hash.add(keyBytes)
        hash.add(outputBytes)
        return fields + Array("\(hash.hex)\n".utf8) + keyBytes + outputBytes
    }

    /// The cell stored in `entry` for the key text `key`, or the problem that makes it unusable.
    public static func decode(_ entry: [UInt8], key: String, engine: String = engineVersion) -> Result<CachedCell, Problem> {
        guard let newline = entry.prefix(256).firstIndex(of: UInt8(ascii: "\n")) else { return .failure(.header) }
        let fields = entry[..<newline].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].starts(with: "WEFT".utf8) else { return .failure(.header) }
        guard fields[0].elementsEqual("WEFT\(formatVersion)".utf8), fields[1].elementsEqual(engine.utf8) else {
            return .failure(.version)
        }
        guard let elements = count(fields[2]), let keyCount = count(fields[3]), let outputCount = count(fields[4]),
              fields[5].count == 16 else { return .failure(.header) }
        let payload = entry[(newline + 1)...]
        // Subtraction of two values known to be in 0...payload.count: it cannot overflow, where a sum could.
        guard keyCount <= payload.count, outputCount == payload.count - keyCount else { return .failure(.truncated) }
        var hash = FNV1a64()
        hash.add(entry[..<fields[5].startIndex])
        hash.add(payload)
        guard fields[5].elementsEqual(hash.hex.utf8) else { return .failure(.checksum) }
        let keyEnd = payload.startIndex + keyCount
        let keyBytes = payload[..<keyEnd]
        guard keyBytes.elementsEqual(key.utf8) else { return .failure(.key) }
        guard elements >= 1, elements <= keyBytes.count(where: { $0 == UInt8(ascii: "{") }) else {
            return .failure(.elements)
        }
        guard let output = String(validating: payload[keyEnd...], as: UTF8.self), isOneObject(output) else {
            return .failure(.output)
        }
        return .success(CachedCell(output: output, elementCount: elements))
    }

    /// A header count: decimal digits only (no sign, no space), at most `Int.max`.
    private static func count(_ field: ArraySlice<UInt8>) -> Int? {
        guard (1...19).contains(field.count),
              field.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int(String(decoding: field, as: UTF8.self))
    }

    /// Whether `output` is one JSON object and nothing else, no deeper than ``maxOutputDepth``.
    private static func isOneObject(_ output: String) -> Bool {
        guard case .object? = try? JSONParser(maxDepth: maxOutputDepth).parse(output) else { return false }
        return true
    }
}

/// The 64-bit FNV-1a hash (Fowler, Noll, Vo): offset basis 0xcbf29ce484222325, prime 0x100000001b3, each byte
/// XORed in before the multiplication.
public struct FNV1a64: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
    }

    /// The hash as 16 lowercase hex digits.
    public var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
