import FeedServerCore
import Testing

/// Shared cache entries read back, and refused for what is wrong with them: entries are untrusted input, so
/// none of them may trap, and none that the server could not have written may be used.
@Suite struct CellEntryTests {
    /// The published FNV-1a 64 test vectors (Fowler, Noll, Vo).
    @Test func fnv1a64MatchesThePublishedVectors() {
        for (text, hex) in [("", "cbf29ce484222325"), ("a", "af63dc4c8601ec8c"), ("foobar", "85944171f73967e8")] {
            var hash = FNV1a64()
            hash.add(text.utf8)
            #expect(hash.hex == hex, "\(text)")
        }
    }

    /// A one-element cell (its text holds one object) and its flat output.
    static let key = CellKey(content: "{\"type\": \"box\"}", width: 375, format: .flat).storageText
    static let cell = CachedCell(output: "{\n  \"c\": [0, 0, 375, 0]\n}\n", elementCount: 1)

    /// An entry as the documented format writes it, checksum and all, whatever its fields say.
    static func entry(_ elements: String, _ keyBytes: String, _ outputBytes: String,
                      key: String = key, output: String = cell.output) -> [UInt8] {
        let fields = "WEFT\(CellEntry.formatVersion) \(CellEntry.engineVersion) \(elements) \(keyBytes) \(outputBytes) "
        var hash = FNV1a64()
        hash.add(fields.utf8)
        hash.add(key.utf8)
        hash.add(output.utf8)
        return Array((fields + hash.hex + "\n" + key + output).utf8)
    }

    @Test func anEntryReadsBackAsItsCell() {
        let entry = CellEntry.encode(key: Self.key, Self.cell)
        let (keyBytes, outputBytes) = (Self.key.utf8.count, Self.cell.output.utf8.count)
        #expect(entry == Self.entry("1", "\(keyBytes)", "\(outputBytes)"))
        let header = String(decoding: entry.prefix(while: { $0 != UInt8(ascii: "\n") }), as: UTF8.self)
        #expect(header.hasPrefix("WEFT2 \(CellEntry.engineVersion) 1 \(keyBytes) \(outputBytes) "))
        #expect(CellEntry.decode(entry, key: Self.key) == .success(Self.cell))
    }

    @Test func damagedEntriesAreRecognizedByWhatIsWrong() {
        let entry = CellEntry.encode(key: Self.key, Self.cell)
        var poisoned = entry
        poisoned[poisoned.count - 5] ^= 0x01  // one bit of the output
        #expect(CellEntry.decode(poisoned, key: Self.key) == .failure(.checksum))
        #expect(CellEntry.decode(Array(entry.dropLast(3)), key: Self.key) == .failure(.truncated))
        #expect(CellEntry.decode(Array("garbage".utf8), key: Self.key) == .failure(.header))
        #expect(CellEntry.decode(Array(entry.prefix(10)), key: Self.key) == .failure(.header))
        let older = CellEntry.encode(key: Self.key, Self.cell, engine: "weft-12")
        #expect(CellEntry.decode(older, key: Self.key) == .failure(.version))
        var format = entry
        format[4] = UInt8(ascii: "9")  // WEFT9
        #expect(CellEntry.decode(format, key: Self.key) == .failure(.version))
        let otherKey = CellKey(content: "{\"type\": \"box\"}", width: 320, format: .flat).storageText
        #expect(CellEntry.decode(entry, key: otherKey) == .failure(.key))
    }

    @Test func lengthsWhoseSumOverflowsAreTruncatedNotATrap() {
        let max = "\(Int.max)"
        #expect(CellEntry.decode(Self.entry("1", max, max), key: Self.key) == .failure(.truncated))
        #expect(CellEntry.decode(Self.entry("1", max, "1"), key: Self.key) == .failure(.truncated))
        #expect(CellEntry.decode(Self.entry("1", "1", max), key: Self.key) == .failure(.truncated))
        // One more than Int.max, a sign or a space is not a count at all.
        for bad in ["9223372036854775808", "-1", "+1", "1 "] {
            #expect(CellEntry.decode(Self.entry(bad, "1", "1"), key: Self.key) == .failure(.header), "\(bad)")
            #expect(CellEntry.decode(Self.entry("1", bad, "1"), key: Self.key) == .failure(.header), "\(bad)")
        }
    }

    @Test func theChecksumCoversTheElementCount() throws {
        var entry = CellEntry.encode(key: Self.key, Self.cell)
        let countAt = try #require(entry.firstIndex(of: UInt8(ascii: " ")).flatMap { first in
            entry[(first + 1)...].firstIndex(of: UInt8(ascii: " ")).map { $0 + 1 }
        })
        #expect(entry[countAt] == UInt8(ascii: "1"))
        entry[countAt] = UInt8(ascii: "0")
        #expect(CellEntry.decode(entry, key: Self.key) == .failure(.checksum))
    }

    /// A forged entry (valid checksum: FNV-1a is no secret) whose count the cell's text cannot hold.
    @Test func aCountTheCellCannotHoldIsRefusedEvenWithAValidChecksum() {
        for count in [0, 2, 5_001, Int.max] {
            let forged = CellEntry.encode(key: Self.key, CachedCell(output: Self.cell.output, elementCount: count))
            #expect(CellEntry.decode(forged, key: Self.key) == .failure(.elements), "\(count)")
        }
        // Three objects in the text: up to three elements.
        let nested = CellKey(content: "{\"type\": \"inset\", \"insets\": {\"top\": 1}, \"child\": {\"type\": \"box\"}}",
                             width: 375, format: .flat).storageText
        for count in 1...4 {
            let entry = CellEntry.encode(key: nested, CachedCell(output: "{}\n", elementCount: count))
            #expect(CellEntry.decode(entry, key: nested) == (count <= 3 ? .success(CachedCell(output: "{}\n", elementCount: count)) : .failure(.elements)))
        }
    }

    @Test func anOutputThatIsNotOneJSONObjectIsRefused() throws {
        for output in ["not json", "{}\n{}\n", "{\"a\": [0, 0, 1, 1]} {\"b\": 1}", "[]\n", "\"text\"", "", "{\"a\": [0, 0, 1, 1]"] {
            let entry = CellEntry.encode(key: Self.key, CachedCell(output: output, elementCount: 1))
            #expect(CellEntry.decode(entry, key: Self.key) == .failure(.output), "\(output)")
        }
        var invalidUTF8 = Self.entry("1", "\(Self.key.utf8.count)", "3", output: "{ }")
        invalidUTF8[invalidUTF8.count - 2] = 0xFF
        var hash = FNV1a64()
        let newline = try #require(invalidUTF8.firstIndex(of: UInt8(ascii: "\n")))
        hash.add(invalidUTF8[..<(newline - 16)])
        hash.add(invalidUTF8[(newline + 1)...])
        invalidUTF8.replaceSubrange((newline - 16)..<newline, with: Array(hash.hex.utf8))
        #expect(CellEntry.decode(invalidUTF8, key: Self.key) == .failure(.output))
    }

    /// The tree format nests two levels per element: as deep as the deepest elements allowed, and no deeper.
    @Test func anOutputIsReadUpToTheDepthTheTreeFormatCanReach() {
        func nested(_ depth: Int) -> String {
            "{\"a\": " + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}"
        }
        #expect(CellEntry.maxOutputDepth == 2 * FeedServerConfiguration.deepestAllowed)
        for (depth, usable) in [(CellEntry.maxOutputDepth, true), (CellEntry.maxOutputDepth + 1, false)] {
            let cell = CachedCell(output: nested(depth), elementCount: 1)
            let decoded = CellEntry.decode(CellEntry.encode(key: Self.key, cell), key: Self.key)
            #expect(decoded == (usable ? .success(cell) : .failure(.output)), "\(depth)")
        }
    }
}
