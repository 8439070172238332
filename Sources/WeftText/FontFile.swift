internal import CFreeType
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the faces of a font file with FreeType: which faces a file (or collection) holds, their family,
/// style, weight and slant, and whether FreeType accepts the file at all.
///
/// FreeType objects are not thread-safe: each call makes its own `FT_Library` and frees it before it returns,
/// so nothing of FreeType outlives a registration or is shared between threads. Shaping and measuring never
/// touch FreeType; they use HarfBuzz's own font functions (see ``ShapingFont``).
enum FontFile {
    /// What FreeType says about one face of a file.
    struct FaceInfo {
        var family: String
        var styleName: String
        var weight: Int
        var isItalic: Bool
        var index: Int
    }

    /// The largest font file opened: 256 MiB. The largest fonts in use, pan-CJK collections, are tens of
    /// megabytes (Debian's Noto Serif CJK Bold: 27 MB); the bound leaves room for collections of every weight
    /// while keeping what one file can make FreeType and HarfBuzz walk bounded.
    static let maximumSize = 256 << 20

    /// Why the file at `path`, which `info` describes, cannot be a font file (not a regular file, or larger
    /// than ``maximumSize``), or nil when it can.
    static func problem(with info: stat, path: String) -> TextError? {
        let reason: String
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            guard Int(info.st_size) > maximumSize else { return nil }
            return TextError("the file has \(info.st_size) bytes, more than the limit of \(maximumSize) for a font file",
                             path: path, kind: .limit)
        case S_IFIFO: reason = "a named pipe"
        case S_IFCHR, S_IFBLK: reason = "a device"
        case S_IFSOCK: reason = "a socket"
        case S_IFDIR: reason = "a directory"
        default: reason = "something else"
        }
        return TextError("not a regular file: \(reason)", path: path, kind: .font)
    }

    /// Calls `body` with a path that names the font file at `path` only if it is a regular file no larger than
    /// ``maximumSize``: the file is opened without blocking (a named pipe would block FreeType for ever) and
    /// checked through its descriptor, and `body` gets `/dev/fd/N`, the checked file itself, so that nothing
    /// can be swapped in between. (Where `/dev/fd` does not name the descriptor's file, `body` gets `path`.)
    static func withChecked<R>(_ path: String, _ body: (String) throws(TextError) -> R) throws(TextError) -> R {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TextError("cannot load the font: cannot open the file", path: path, kind: .font)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw TextError("cannot load the font: cannot read the file", path: path, kind: .font)
        }
        if let problem = problem(with: info, path: path) { throw problem }
        let alias = "/dev/fd/\(descriptor)"
        var aliased = stat()
        let same = stat(alias, &aliased) == 0 && aliased.st_dev == info.st_dev && aliased.st_ino == info.st_ino
        return try body(same ? alias : path)
    }

    /// The faces of the font file at `source` (one, or each face of a TTC/OTC collection); errors name `path`.
    static func faces(at source: String, path: String) throws(TextError) -> [FaceInfo] {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else {
            throw TextError("FreeType could not start", path: path, kind: .font)
        }
        defer { FT_Done_FreeType(library) }
        let first = try openFace(library, source, index: 0, path: path)
        let count = max(1, Int(first.pointee.num_faces))
        var faces = [info(of: first, index: 0, path: path)]
        FT_Done_Face(first)
        for index in 1..<count {
            let face = try openFace(library, source, index: index, path: path)
            faces.append(info(of: face, index: index, path: path))
            FT_Done_Face(face)
        }
        return faces
    }

    private static func openFace(_ library: FT_Library, _ source: String, index: Int, path: String) throws(TextError) -> FT_Face {
        var face: FT_Face?
        let error = FT_New_Face(library, source, FT_Long(index), &face)
        guard error == 0, let face else {
            throw TextError("cannot load the font: \(describe(error))", path: path, kind: .font)
        }
        guard face.pointee.face_flags & FT_Long(FT_FACE_FLAG_SFNT) != 0 else {
            FT_Done_Face(face)
            throw TextError("not an OpenType or TrueType font (HarfBuzz shapes only those)", path: path, kind: .font)
        }
        return face
    }

    private static func info(of face: FT_Face, index: Int, path: String) -> FaceInfo {
        let record = face.pointee
        let family = record.family_name.map { String(cString: $0) } ?? lastComponent(of: path)
        let style = record.style_name.map { String(cString: $0) } ?? "Regular"
        var weight = record.style_flags & FT_Long(FT_STYLE_FLAG_BOLD) != 0 ? 700 : 400
        if let table = FT_Get_Sfnt_Table(face, FT_SFNT_OS2) {
            let os2 = table.assumingMemoryBound(to: TT_OS2.self).pointee
            if (1...1000).contains(Int(os2.usWeightClass)) { weight = Int(os2.usWeightClass) }
        }
        let italic = record.style_flags & FT_Long(FT_STYLE_FLAG_ITALIC) != 0
        return FaceInfo(family: family, styleName: style, weight: weight, isItalic: italic, index: index)
    }

    /// The last component of a path.
    static func lastComponent(of path: String) -> String {
        String(path.split(separator: "/").last ?? Substring(path))
    }

    /// FreeType's error codes that a bad path or file gives, in words.
    private static func describe(_ error: FT_Error) -> String {
        switch error {
        case 0x01, 0x51: return "cannot open the file"
        case 0x02: return "unknown file format"
        case 0x03: return "broken file"
        case 0x06: return "no face with that index"
        case 0x08: return "broken font table"
        case 0x40: return "out of memory"
        case 0x54: return "cannot read the file"
        default: return "FreeType error \(error)"
        }
    }
}
