import CWeftThread
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A reference back to an owner from what it holds (a node's subnodes to the node), which does not keep the
/// owner alive and gives readers a strong reference, or nil once the owner's deinit has begun: what a weak
/// reference does, without the side table a weak reference gives its object (which makes every retain and
/// release of the object the runtime's slow kind, and costs an allocation when the first weak reference to it
/// is made).
///
/// How: it holds the owner unowned, which keeps the owner's memory (not the owner: its deinit runs when its
/// last strong reference goes) until this reference goes away, and never reads that unowned reference (which
/// would trap once the owner is gone). A reader retains the owner at its address with the runtime's try-retain,
/// which fails once the owner's deinit has begun: the memory it looks at is still the owner's, so there is
/// nothing to wait for and nothing the owner must do when it goes. Releasing an owner's last reference is safe
/// anywhere, under any lock. The cost of a gone owner is its instance's memory (its stored properties are
/// destroyed with it), until the last reference back to it goes. `Object` MUST be a native Swift class.
public final class BackReference<Object: AnyObject & Sendable>: Sendable {
    /// The owner, unowned: never read (see above). Its memory is what makes `address` safe to try.
    @usableFromInline unowned let owner: Object
    /// The owner's address.
    @usableFromInline let address: UInt

    /// A reference back to `owner` (an owner keeps one in a ``BackReferenceSlot``, made when first asked for).
    public init(_ owner: Object) {
        self.owner = owner
        address = UInt(bitPattern: Unmanaged.passUnretained(owner).toOpaque())
    }

    /// The owner, retained; nil once its deinit has begun.
    @inlinable
    public var object: Object? {
        guard let pointer = UnsafeMutableRawPointer(bitPattern: address), weft_try_retain(pointer) else { return nil }
        return Unmanaged<Object>.fromOpaque(pointer).takeRetainedValue()
    }

    /// Whether this refers back to `candidate` (which the caller holds): compared, not retained. (While this
    /// reference exists, no other object can live at its owner's address.)
    @inlinable
    public func refers(to candidate: Object) -> Bool {
        address == UInt(bitPattern: Unmanaged.passUnretained(candidate).toOpaque())
    }
}

/// Where an owner keeps its ``BackReference``, made the first time one is asked for (by a compare-and-swap: two
/// threads asking at once get the same one), and let go of with the owner. (Inlinable, unlike the standard
/// library's `AtomicLazyReference`, whose unspecialized calls looked the reference's metadata up every time.)
public struct BackReferenceSlot<Object: AnyObject & Sendable>: ~Copyable, Sendable {
    /// The back reference, retained (0: none yet).
    @usableFromInline let bits = Atomic<UInt>(0)

    @inlinable
    public init() {}

    /// The owner's back reference (`owner` MUST be the object that holds this slot).
    @inlinable
    public func reference(to owner: Object) -> BackReference<Object> {
        if let pointer = UnsafeRawPointer(bitPattern: bits.load(ordering: .acquiring)) {
            return Unmanaged<BackReference<Object>>.fromOpaque(pointer).takeUnretainedValue()
        }
        let made = BackReference(owner)
        let retained = Unmanaged.passRetained(made)
        let (stored, found) = bits.compareExchange(
            expected: 0, desired: UInt(bitPattern: retained.toOpaque()), ordering: .acquiringAndReleasing)
        guard !stored, let pointer = UnsafeRawPointer(bitPattern: found) else { return made }
        // Another thread made one first: that one is the owner's.
        retained.release()
        return Unmanaged<BackReference<Object>>.fromOpaque(pointer).takeUnretainedValue()
    }

    deinit {
        if let pointer = UnsafeRawPointer(bitPattern: bits.load(ordering: .acquiring)) {
            Unmanaged<BackReference<Object>>.fromOpaque(pointer).release()
        }
    }
}
