import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import WeftFormat
import WeftLayout

/// The parser's work bound, its width limit and its stop hook.
///
/// Work is measured by a deterministic counter, not a clock: the memory pages the test's thread touches for the
/// first time while parsing (``PageTouches``). Linear parsing touches a bounded amount per element (storage
/// grows by doubling); a parser that copies a container on every append, the bug of issue 9 item 1, writes the
/// whole container again for each element, so its pages grow with the square of the width.
@Suite("JSON parser", .serialized)
struct JSONParserTests {
    static func array(_ count: Int) -> String {
        "[" + (0..<count).map { String($0 % 1000) }.joined(separator: ",") + "]"
    }

    static func object(_ count: Int) -> String {
        "{" + (0..<count).map { "\"k\($0)\":\($0 % 1000)" }.joined(separator: ",") + "}"
    }

    static func pagesToParse(_ text: String) throws -> Int {
        var value: JSONValue = .null
        let pages = try #require(try PageTouches.count { value = try JSONParser().parse(text) })
        let count: Int
        switch value {
        case .array(let elements): count = elements.count
        case .object(let object): count = object.keys.count
        default: count = -1
        }
        #expect(count > 0)
        return pages
    }

    // Needs glibc's own malloc: an allocator that replaces it (the address sanitizer's) refuses `mallopt`, and
    // the page count would not mean the same.
    @Test("A wide array or object parses touching a bounded amount of memory per element",
          .enabled(if: PageTouches.isAvailable, "needs glibc's own malloc (mallopt)"),
          arguments: ["array", "object"], [100_000, 200_000])
    func boundedWork(kind: String, count: Int) throws {
        let pages = try Self.pagesToParse(kind == "array" ? Self.array(count) : Self.object(count))
        // An element is a 16-byte payload and a tag; an object member adds its key to an array and a
        // dictionary. With storage that doubles, each takes well under 400 bytes in all: fewer than one 4 KiB
        // page per 10 elements. Copying the container on every append writes about count * count / 2
        // elements, millions of pages. (Reusing memory freed earlier only lowers the count.)
        #expect(pages < count / 10, "\(kind) of \(count): \(pages) pages")
    }

    @Test("A container wider than the limit is refused as a limit, naming its path and the element's place")
    func widthLimit() throws {
        let parser = JSONParser(maxWidth: 3)
        #expect(throws: Never.self) { try parser.parse("[1, 2, 3]") }
        #expect(throws: Never.self) { try parser.parse(#"{"a": 1, "b": 2, "c": 3}"#) }
        // The fourth element starts at column 8.
        #expect(throws: LayoutError("at line 1, column 8: more elements than the limit of 3 in one array",
                                    path: "root", kind: .limit)) { try parser.parse("[1,2,3,4]") }
        #expect(throws: LayoutError("at line 2, column 27: more members than the limit of 3 in one object",
                                    path: "root.a[1]", kind: .limit)) {
            try parser.parse("{\"a\": [0,\n {\"p\": 1, \"q\": 2, \"r\": 3, \"s\": 4}]}")
        }
    }

    @Test("The decoder's width limit names the children array")
    func decoderWidthLimit() {
        let decoder = LayoutDecoder(limits: LayoutDecoder.Limits(maxWidth: 2))
        let box = #"{"type": "box"}"#
        #expect(throws: Never.self) { try decoder.decode(#"{"type": "stack", "children": [\#(box), \#(box)]}"#) }
        do {
            _ = try decoder.decode(#"{"type": "stack", "children": [\#(box), \#(box), \#(box)]}"#)
            Issue.record("three children were accepted with a width limit of 2")
        } catch {
            #expect(error.kind == .limit)
            #expect(error.path == "root.children")
            #expect(error.reason.hasSuffix("more elements than the limit of 2 in one array"))
        }
    }

    @Test("The stop hook is asked once per 1,024 values and ends the parse where it stands")
    func stopHook() throws {
        let calls = CallCount()
        // 10,000 numbers and the array itself: 10,001 values, so 9 calls.
        _ = try JSONParser(shouldStop: { calls.value.add(1, ordering: .relaxed); return false }).parse(Self.array(10_000))
        #expect(calls.value.load(ordering: .relaxed) == 9)
        // Stopping at the first call: the array's opening was value 1, so elements 0 to 1,021 are in and the
        // 1,024th value, element 1,022, is next.
        #expect(throws: LayoutError("at line 1, column \(Self.array(1022).utf8.count + 1): \(JSONParser.stoppedReason)",
                                    path: "root[1022]", kind: .limit)) {
            try JSONParser(shouldStop: { true }).parse(Self.array(10_000))
        }
    }

    @Test("Errors still name the line, the column and the path of the enclosing value")
    func errorPlaces() {
        #expect(throws: LayoutError("malformed JSON at line 1, column 17: expected a value, found 'x'",
                                    path: "root.a[1].b", kind: .malformed)) {
            try JSONParser().parse(#"{"a": [1, {"b": x}]}"#)
        }
        #expect(throws: LayoutError("malformed JSON at line 1, column 10: duplicate member \"a\"",
                                    path: "root", kind: .malformed)) {
            try JSONParser().parse(#"{"a": 1, "a": 2}"#)
        }
        #expect(throws: LayoutError("at line 1, column 3: nesting deeper than 2 levels", path: "root[0][0]", kind: .limit)) {
            try JSONParser(maxDepth: 2).parse("[[[1]]]")
        }
    }
}

/// A count shared with a `@Sendable` closure.
final class CallCount: Sendable {
    let value = Atomic<Int>(0)
}

/// Counts the memory pages that one thread touches for the first time, a deterministic stand-in for the bytes
/// it allocates: glibc is told to map every allocation of 64 KiB or more afresh (`M_MMAP_THRESHOLD`, which also
/// stops it from adapting the threshold), so each page of a large new buffer costs one minor page fault of the
/// thread that fills it (`getrusage(RUSAGE_THREAD)`), however busy the rest of the process is.
enum PageTouches {
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32

    static let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD in <malloc.h>

    /// glibc's `mallopt`, when the process has it and it takes settings (an allocator that replaces malloc,
    /// as the address sanitizer's does, refuses them).
    static var mallopt: Mallopt? {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "mallopt") else { return nil }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        return mallopt(mmapThreshold, 128 << 10) == 1 ? mallopt : nil  // glibc's initial threshold
    }

    static var isAvailable: Bool { mallopt != nil }

    /// The pages first touched on this thread while `body` runs, or nil where glibc's `mallopt` is missing.
    static func count(_ body: () throws -> Void) rethrows -> Int? {
        guard let mallopt else { return nil }
        guard mallopt(mmapThreshold, 64 << 10) == 1 else { return nil }
        defer { _ = mallopt(mmapThreshold, 128 << 10) }  // glibc's initial threshold
        let before = faults()
        try body()
        return faults() - before
    }

    static func faults() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(1), &usage)  // RUSAGE_THREAD
        return usage.ru_minflt
    }
}
