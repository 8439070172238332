/// The default fonts: Debian 12's Noto and DejaVu packages, which `Scripts/setup.sh` installs
/// (fonts-noto-core, fonts-noto-cjk, fonts-noto-color-emoji, fonts-dejavu-core).
extension FontRegistry {
    /// Where Debian installs fonts.
    public static let debianFontDirectory = "/usr/share/fonts"

    /// The standard registry: Noto Sans (the default family) and Noto Serif with their bold and italic faces,
    /// Noto Sans for 20 more scripts, Noto Sans CJK, Noto Color Emoji, Noto's symbol fonts and DejaVu Sans;
    /// fallbacks per script as in ``standardFallbacks``. Files that are not installed are skipped; with no
    /// Noto Sans at all this is an error that says what to install.
    ///
    /// Loaded once per process (the files are mapped, not read) and shared by every copy.
    public static func standard() throws(TextError) -> FontRegistry {
        try standardResult.get()
    }

    private static let standardResult: Result<FontRegistry, TextError> = {
        do throws(TextError) {
            return .success(try loadStandard(directory: debianFontDirectory))
        } catch {
            return .failure(error)
        }
    }()

    /// The standard files (relative to `directory`) registered, with the standard fallbacks.
    static func loadStandard(directory: String) throws(TextError) -> FontRegistry {
        var registry = FontRegistry()
        for file in standardFiles {
            let path = directory + "/" + file
            if FontDirectory.isFile(path) { try registry.register(file: path) }
        }
        guard registry.families.contains("Noto Sans") else {
            throw TextError("the default fonts are not installed: run Scripts/setup.sh (Debian: apt-get install "
                            + "fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji fonts-dejavu-core)",
                            path: directory + "/" + standardFiles[0], kind: .font)
        }
        registry.defaultFamily = "Noto Sans"
        for (script, families) in standardFallbacks { registry.setFallback(families, for: script) }
        return registry
    }

    /// Noto's per-script families in fonts-noto-core, by ISO 15924 code, each with a regular and bold face.
    static let notoScripts: [(code: String, family: String)] = [
        ("Arab", "Arabic"), ("Hebr", "Hebrew"), ("Deva", "Devanagari"), ("Beng", "Bengali"), ("Taml", "Tamil"),
        ("Thai", "Thai"), ("Armn", "Armenian"), ("Geor", "Georgian"), ("Ethi", "Ethiopic"), ("Khmr", "Khmer"),
        ("Gujr", "Gujarati"), ("Guru", "Gurmukhi"), ("Knda", "Kannada"), ("Mlym", "Malayalam"), ("Telu", "Telugu"),
        ("Sinh", "Sinhala"), ("Laoo", "Lao"), ("Mymr", "Myanmar"),
    ]

    /// The files of the standard registry, relative to the font directory; the first is the default face.
    static let standardFiles: [String] = {
        let noto = "truetype/noto/"
        var files = ["Regular", "Bold", "Italic", "BoldItalic"].map { noto + "NotoSans-\($0).ttf" }
        files += ["Regular", "Bold", "Italic", "BoldItalic"].map { noto + "NotoSerif-\($0).ttf" }
        for (_, family) in notoScripts { files += ["Regular", "Bold"].map { noto + "NotoSans\(family)-\($0).ttf" } }
        files += ["NotoSansSymbols-Regular", "NotoSansSymbols-Bold", "NotoSansSymbols2-Regular", "NotoSansMath-Regular",
                  "NotoColorEmoji"].map { noto + $0 + ".ttf" }
        files += ["Regular", "Bold"].map { "opentype/noto/NotoSansCJK-\($0).ttc" }
        files += ["", "-Bold", "-Oblique", "-BoldOblique"].map { "truetype/dejavu/DejaVuSans\($0).ttf" }
        return files
    }()

    /// The standard fallbacks: each script's Noto family; Japanese forms for Han (set `Hani` to
    /// `Noto Sans CJK SC` or `TC` for Chinese text), Korean for Hangul; Noto Color Emoji for emoji; and for
    /// everything else Noto Sans, the symbol fonts, DejaVu Sans, CJK and emoji.
    public static let standardFallbacks: [FontScript: [String]] = {
        var fallbacks: [FontScript: [String]] = [:]
        for (code, family) in notoScripts { fallbacks[FontScript(code)] = ["Noto Sans \(family)"] }
        for code in ["Hani", "Hira", "Kana"] { fallbacks[FontScript(code)] = ["Noto Sans CJK JP"] }
        fallbacks[.hangul] = ["Noto Sans CJK KR"]
        fallbacks[FontScript("Bopo")] = ["Noto Sans CJK TC"]
        fallbacks[.emoji] = ["Noto Color Emoji"]
        fallbacks[.common] = ["Noto Sans", "Noto Sans Symbols", "Noto Sans Symbols2", "Noto Sans Math", "DejaVu Sans",
                              "Noto Sans CJK JP", "Noto Color Emoji"]
        return fallbacks
    }()
}
