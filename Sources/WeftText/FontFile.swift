internal import CFreeType

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

    /// The faces of the font file at `path` (one, or each face of a TTC/OTC collection).
    static func faces(at path: String) throws(TextError) -> [FaceInfo] {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else {
            throw TextError("FreeType could not start", path: path, kind: .font)
        }
        defer { FT_Done_FreeType(library) }
        let first = try open(library, path, index: 0)
        let count = max(1, Int(first.pointee.num_faces))
        var faces = [info(of: first, index: 0, path: path)]
        FT_Done_Face(first)
        for index in 1..<count {
            let face = try open(library, path, index: index)
            faces.append(info(of: face, index: index, path: path))
            FT_Done_Face(face)
        }
        return faces
    }

    private static func open(_ library: FT_Library, _ path: String, index: Int) throws(TextError) -> FT_Face {
        var face: FT_Face?
        let error = FT_New_Face(library, path, FT_Long(index), &face)
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
