import Foundation
import Testing
import WeftText

/// Entries of a font directory that are not font files to open: named pipes, devices and files too large,
/// each skipped with an error naming it while the fonts beside them are registered.
@Suite("Font directory entries")
struct FontDirectoryTests {
    static let dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    /// ``FontFile/maximumSize``: 256 MiB.
    static let maximumSize = 256 << 20

    /// A directory with DejaVu Sans as `a.ttf` beside a named pipe `x.ttf`, a link to /dev/null `y.ttf` and a
    /// sparse file one byte over the size limit `z.ttf`; removed by the caller.
    func directoryWithBadEntries() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("weft-font-entries-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.dejaVu, toPath: url.appendingPathComponent("a.ttf").path)
        try #require(mkfifo(url.appendingPathComponent("x.ttf").path, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: url.appendingPathComponent("y.ttf").path, withDestinationPath: "/dev/null")
        let big = url.appendingPathComponent("z.ttf")
        try Data().write(to: big)
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: UInt64(Self.maximumSize + 1))
        try handle.close()
        return url
    }

    @Test("A named pipe, a device and an oversize file are skipped, each named; the font beside them is registered")
    func skipped() throws {
        let directory = try directoryWithBadEntries()
        defer { try? FileManager.default.removeItem(at: directory) }
        var registry = FontRegistry()
        var skipped: [TextError] = []
        let faces = try registry.register(directory: directory.path) { skipped.append($0) }
        #expect(faces.map(\.family) == ["DejaVu Sans"] && registry.families == ["DejaVu Sans"])
        #expect(skipped == [
            TextError("not a regular file: a named pipe", path: directory.appendingPathComponent("x.ttf").path, kind: .font),
            TextError("not a regular file: a device", path: directory.appendingPathComponent("y.ttf").path, kind: .font),
            TextError("the file has \(Self.maximumSize + 1) bytes, more than the limit of \(Self.maximumSize) for a font file",
                      path: directory.appendingPathComponent("z.ttf").path, kind: .limit),
        ])
    }

    @Test("Registering such an entry as a file is an error naming it, at once")
    func files() throws {
        let directory = try directoryWithBadEntries()
        defer { try? FileManager.default.removeItem(at: directory) }
        var registry = FontRegistry()
        let pipe = directory.appendingPathComponent("x.ttf").path
        #expect(throws: TextError("not a regular file: a named pipe", path: pipe, kind: .font)) { try registry.register(file: pipe) }
        #expect(throws: TextError("not a regular file: a device", path: "/dev/null", kind: .font)) {
            try registry.register(file: "/dev/null")
        }
        let big = directory.appendingPathComponent("z.ttf").path
        #expect(throws: TextError("the file has \(Self.maximumSize + 1) bytes, more than the limit of \(Self.maximumSize) for a font file",
                                  path: big, kind: .limit)) {
            try registry.register(file: big)
        }
        #expect(registry.faces.isEmpty)
    }

    @Test("A directory with nothing but skipped entries says so")
    func onlySkipped() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("weft-font-entries-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pipe = directory.appendingPathComponent("x.ttf").path
        try #require(mkfifo(pipe, 0o600) == 0)
        var registry = FontRegistry()
        #expect(throws: TextError("no font files (.ttf, .otf, .ttc, .otc) in the directory (1 skipped; the first: \(pipe): not a regular file: a named pipe)",
                                  path: directory.path, kind: .font)) {
            try registry.register(directory: directory.path) { _ in }
        }
    }
}
