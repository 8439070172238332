import Dispatch
import Synchronization
import Testing
import WeftSync

/// `BackReference` and its slot, alone (nodes use them for their supernode): one reference per owner however
/// many threads ask for it at once, the owner while it lives, nil once it went away, and never the owner kept
/// alive by it.
@Suite("Back references")
struct BackReferenceTests {
    final class Owner: Sendable {
        let name: String
        let slot = BackReferenceSlot<Owner>()

        init(_ name: String) { self.name = name }

        var reference: BackReference<Owner> { slot.reference(to: self) }
    }

    @Test("An owner's slot makes one reference, which gives the owner while it lives and nil after")
    func lifetime() {
        var reference: BackReference<Owner>?
        weak var gone: Owner?
        do {
            let owner = Owner("a")
            gone = owner
            let first = owner.reference
            #expect(first === owner.reference, "asked twice, the same reference")
            #expect(first.object === owner)
            #expect(first.refers(to: owner))
            #expect(!first.refers(to: Owner("b")))
            reference = first
        }
        // The owner's memory stays its own while the reference exists: objects made now, of the owner's size
        // (which the allocator hands the memory it last freed first), live elsewhere, so `refers(to:)` never
        // takes one of them for the owner, and a try-retain looks at the owner's memory. (Made before anything
        // else allocates.)
        var others: [Owner] = []
        others.reserveCapacity(64)
        for _ in 0..<64 { others.append(Owner("")) }
        #expect(gone == nil, "the reference does not keep its owner alive")
        #expect(reference?.object == nil)
        if let reference {
            #expect(!others.contains { reference.refers(to: $0) })
        }
    }

    @Test("Threads asking for an owner's reference at once all get the same one")
    func racingFirstUse() {
        for _ in 0..<200 {
            let owner = Owner("raced")
            let seen = Locked<[ObjectIdentifier]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                let id = ObjectIdentifier(owner.reference)
                seen.withLock { $0.append(id) }
            }
            #expect(Set(seen.withLock { $0 }).count == 1)
        }
    }

    @Test("Readers racing the owner's release find it whole or nil")
    func readersRacingRelease() {
        for _ in 0..<200 {
            let handoff = Locked<Owner?>(Owner("released"))
            guard let reference = handoff.withLock({ $0?.reference }) else {
                Issue.record("the owner is there")
                return
            }
            let wholes = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 3) { thread in
                if thread == 0 {
                    // The last reference goes away here, while the others read.
                    let owner = handoff.withLock { $0.take() }
                    _ = owner
                } else {
                    for _ in 0..<50 {
                        if let owner = reference.object, owner.name == "released" { wholes.add(1, ordering: .relaxed) }
                    }
                }
            }
            #expect(reference.object == nil)
            #expect(wholes.load(ordering: .relaxed) <= 100)
        }
    }
}
