#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds font files in a directory tree (POSIX `opendir`, so that WeftText needs no Foundation).
enum FontDirectory {
    /// The extensions of font files HarfBuzz and FreeType read, lowercased.
    static let extensions: Set<String> = ["ttf", "otf", "ttc", "otc"]

    /// The font files under `path`, sorted, and the entries with a font file's name that are skipped (sorted):
    /// those that are not regular files (named pipes, devices, sockets, links to them) or are larger than
    /// ``FontFile/maximumSize``, each as an error naming it. An error when `path` is not a readable directory
    /// or holds no font file.
    static func fontFiles(under path: String) throws(TextError) -> (files: [String], skipped: [TextError]) {
        guard isDirectory(path) else {
            throw TextError("not a directory", path: path, kind: .font)
        }
        var files: [String] = []
        var skipped: [TextError] = []
        var pending = [path]
        var visited = 0
        while let directory = pending.popLast() {
            visited += 1
            guard visited <= 10_000 else {
                throw TextError("more than 10,000 directories below it", path: path, kind: .limit)
            }
            guard let handle = opendir(directory) else {
                throw TextError("cannot read the directory", path: directory, kind: .font)
            }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                let full = directory.hasSuffix("/") ? directory + name : directory + "/" + name
                var info = stat()
                let found = stat(full, &info) == 0
                if found && (info.st_mode & S_IFMT) == S_IFDIR {
                    if !isLink(full) { pending.append(full) }
                } else if let dot = name.lastIndex(of: "."), extensions.contains(name[name.index(after: dot)...].lowercased()) {
                    // An entry that stat cannot read (a dangling link) is listed: opening it says why it fails.
                    if found, let problem = FontFile.problem(with: info, path: full) {
                        skipped.append(problem)
                    } else {
                        files.append(full)
                    }
                }
            }
        }
        skipped.sort { $0.path < $1.path }
        guard !files.isEmpty else {
            let more = skipped.first.map { " (\(skipped.count) skipped; the first: \($0))" } ?? ""
            throw TextError("no font files (.ttf, .otf, .ttc, .otc) in the directory\(more)", path: path, kind: .font)
        }
        return (files.sorted(), skipped)
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
