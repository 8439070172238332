import Testing
import WeftLayout

@Suite("README")
struct ReadmeExampleTests {
    /// The "Using it from Swift" example, as printed in the README.
    @Test("The Swift example lays out as described")
    func example() throws {
        let avatar = Box(style: LayoutStyle(preferredSize: Size(44, 44)), identifier: "avatar")
        let name = Box(size: Size(120, 17), identifier: "name")
        let row = StackSpec.horizontal(spacing: 8, alignItems: .center, children: [avatar, name])
        let layout = try Layout.compute(InsetSpec(insets: EdgeInsets(all: 8), child: row),
                                        in: SizeRange(min: Size(375, 0), max: Size(375, .infinity)))
        let frames = Dictionary(uniqueKeysWithValues: layout.allFrames().compactMap { entry in
            entry.element.identifier.map { ($0, entry.frame) }
        })
        // The row is exactly 375 - 16 = 359 wide and 44 tall (the avatar); the name is centered in it:
        // floor((44 - 17) / 2) = 13.5 on the 1/2-point grid, after the avatar and 8 of spacing.
        #expect(layout.size == Size(375, 60))
        #expect(frames["avatar"] == Rect(x: 8, y: 8, width: 44, height: 44))
        #expect(frames["name"] == Rect(x: 60, y: 21.5, width: 120, height: 17))
    }
}
