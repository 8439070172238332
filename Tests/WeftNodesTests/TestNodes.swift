import Foundation
import WeftLayout
@testable import WeftNodes
import WeftSync

/// A leaf whose size is settable and whose measurements are counted.
final class CountingLeaf: Node, @unchecked Sendable {
    private let counters = Locked(Counters(size: .zero))

    struct Counters {
        var size: Size
        var measurements = 0
    }

    init(_ identifier: String, size: Size) {
        counters.withLock { $0.size = size }
        super.init()
        self.identifier = identifier
    }

    var size: Size {
        get { counters.withLock { $0.size } }
        set { counters.withLock { $0.size = newValue } }
    }

    var measurements: Int { counters.withLock { $0.measurements } }

    override func calculateSizeThatFits(_ constrainedSize: Size) -> Size {
        counters.withLock {
            $0.measurements += 1
            return $0.size
        }
    }
}

/// A node whose spec comes from a closure over settable children, counting spec calls.
final class ComposedNode: Node, @unchecked Sendable {
    private let content = Locked(Content())

    struct Content {
        var build: @Sendable (SizeRange) -> any LayoutElement = { _ in Spacer() }
        var specCalls = 0
        var gate: DispatchSemaphore?
    }

    init(_ identifier: String, managed: Bool = true, build: @escaping @Sendable (SizeRange) -> any LayoutElement) {
        super.init()
        self.identifier = identifier
        automaticallyManagesSubnodes = managed
        content.withLock { $0.build = build }
    }

    func setBuild(_ build: @escaping @Sendable (SizeRange) -> any LayoutElement) {
        content.withLock { $0.build = build }
    }

    /// Makes the next spec call wait until `gate` is signalled.
    func setGate(_ gate: DispatchSemaphore?) {
        content.withLock { $0.gate = gate }
    }

    var specCalls: Int { content.withLock { $0.specCalls } }

    override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
        let (build, gate) = content.withLock { c -> (@Sendable (SizeRange) -> any LayoutElement, DispatchSemaphore?) in
            c.specCalls += 1
            defer { c.gate = nil }
            return (c.build, c.gate)
        }
        gate?.wait()
        return build(range)
    }
}

/// Runs `body` on the apply queue and waits.
func onApplyQueue<T>(_ body: () throws -> T) rethrows -> T {
    try ApplyQueue.main.sync(body)
}

func settle() throws {
    let settled = try ApplyQueue.main.settle(timeout: 30)
    if !settled { throw LayoutError("the apply queue did not settle within 30 s") }
}

/// Waits until `condition` holds, checking every millisecond, for at most `timeout` seconds; returns whether it
/// held (a test that waits for another thread never spins forever).
func waitUntil(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
    while !condition() {
        if DispatchTime.now().uptimeNanoseconds > deadline { return false }
        usleep(1000)
    }
    return true
}

func names(_ nodes: [Node]) -> [String] {
    nodes.map { $0.identifier ?? "?" }
}

let cellRange = SizeRange(min: Size(375, 0), max: Size(375, .infinity))
