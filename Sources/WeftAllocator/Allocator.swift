#if Jemalloc
import CJemalloc
#endif

/// Which malloc the process uses: jemalloc when built with the `Jemalloc` package trait
/// (`swift build --traits Jemalloc`; needs Debian's libjemalloc-dev, which `Scripts/setup.sh` installs),
/// otherwise the C library's.
///
/// Linking jemalloc replaces malloc and free process-wide; asking it for its version here also keeps the
/// linker from dropping the library.
public enum Allocator {
    public static var name: String {
        #if Jemalloc
        var version: UnsafePointer<CChar>?
        var size = MemoryLayout<UnsafePointer<CChar>?>.size
        if mallctl("version", &version, &size, nil, 0) == 0, let version {
            return "jemalloc \(String(cString: version))"
        }
        return "jemalloc"
        #else
        return "glibc malloc"
        #endif
    }
}
