/// How a cell is stored in the shared cache: a header line, then the cell's key text and its output.
///
/// ```
/// WEFT<format version> <engine version> <elements> <key bytes> <output bytes> <checksum>\n<key><output>
/// ```
///
/// The checksum is FNV-1a 64 (16 hex digits) of the key and output bytes together. Reading checks, in order:
/// the header's shape, the versions, the length (a short entry is `truncated`), the checksum, then that the
/// key is the one asked for (keys are hashes: a collision reads as a miss, not as another cell).
public enum CellEntry {
    /// The version of this encoding.
    public static let formatVersion = 1
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
    }

    /// The entry for `cell`, whose key text is `key`.
    public static func encode(key: String, _ cell: CachedCell, engine: String = engineVersion) -> [UInt8] {
        let keyBytes = Array(key.utf8)
        let outputBytes = Array(cell.output.utf8)
        var hash = FNV1a64()
        hash.add(keyBytes)
        hash.add(outputBytes)
        let header = "WEFT\(formatVersion) \(engine) \(cell.elementCount) \(keyBytes.count) \(outputBytes.count) \(hash.hex)\n"
        return Array(header.utf8) + keyBytes + outputBytes
    }

    /// The cell stored in `entry` for the key text `key`, or the problem that makes it unusable.
    public static func decode(_ entry: [UInt8], key: String, engine: String = engineVersion) -> Result<CachedCell, Problem> {
        guard let newline = entry.prefix(256).firstIndex(of: UInt8(ascii: "\n")) else { return .failure(.header) }
        let fields = entry[..<newline].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard fields.count == 6, fields[0].hasPrefix("WEFT") else { return .failure(.header) }
        guard fields[0] == "WEFT\(formatVersion)", fields[1] == engine else { return .failure(.version) }
        guard let elements = Int(fields[2]), let keyCount = Int(fields[3]), let outputCount = Int(fields[4]),
              elements >= 0, keyCount >= 0, outputCount >= 0, fields[5].utf8.count == 16 else { return .failure(.header) }
        let payload = entry[(newline + 1)...]
        guard payload.count == keyCount + outputCount else { return .failure(.truncated) }
        var hash = FNV1a64()
        hash.add(payload)
        guard hash.hex == fields[5] else { return .failure(.checksum) }
        let keyEnd = payload.startIndex + keyCount
        guard payload[..<keyEnd].elementsEqual(key.utf8) else { return .failure(.key) }
        guard let output = String(validating: payload[keyEnd...], as: UTF8.self) else { return .failure(.checksum) }
        return .success(CachedCell(output: output, elementCount: elements))
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
