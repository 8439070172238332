import WeftLayout
// Users of the node layer get the lock type with it (data sources, cells with state of their own).
@_exported import WeftSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A per-thread spare `LayoutBuilder`, so that laying out one node after another on a thread reuses the same
/// arena instead of allocating one each time.
///
/// `take` hands out the thread's spare (or a new builder when the spare is in use: nested layouts get their
/// own) and `give` puts it back. Only the owning thread touches its spare.
package enum BuilderPool {
    private final class Spare {
        var builder: LayoutBuilder?

        var isEmpty: Bool {
            switch builder {
            case .none: return true
            case .some: return false
            }
        }

        init(_ builder: consuming LayoutBuilder) {
            self.builder = consume builder
        }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        return key
    }()

    package static func take(scale: Double) -> LayoutBuilder {
        if let pointer = pthread_getspecific(key) {
            let spare = Unmanaged<Spare>.fromOpaque(pointer).takeUnretainedValue()
            if let builder = spare.builder.take(), builder.grid.scale == scale {
                return builder
            }
        }
        return LayoutBuilder(scale: scale)
    }

    package static func give(_ builder: consuming LayoutBuilder) {
        builder.reset()
        if let pointer = pthread_getspecific(key) {
            let spare = Unmanaged<Spare>.fromOpaque(pointer).takeUnretainedValue()
            if spare.isEmpty { spare.builder = consume builder }
            return
        }
        let spare = Spare(builder)
        pthread_setspecific(key, Unmanaged.passRetained(spare as AnyObject).toOpaque())
    }
}
