// Main/cross axis math, so that the stack algorithm never branches on direction itself. The main axis is the
// stack's direction ("stack dimension" in Texture), the cross axis the other one.

extension Size {
    @inlinable
    func main(_ direction: StackDirection) -> Double {
        direction == .vertical ? height : width
    }

    @inlinable
    func cross(_ direction: StackDirection) -> Double {
        direction == .vertical ? width : height
    }

    @inlinable
    init(_ direction: StackDirection, main: Double, cross: Double) {
        self = direction == .vertical ? Size(width: cross, height: main) : Size(width: main, height: cross)
    }
}

extension Point {
    @inlinable
    init(_ direction: StackDirection, main: Double, cross: Double) {
        self = direction == .vertical ? Point(x: cross, y: main) : Point(x: main, y: cross)
    }
}

extension SizeRange {
    @inlinable
    init(_ direction: StackDirection, mainMin: Double, mainMax: Double, crossMin: Double, crossMax: Double) {
        self.init(
            min: Size(direction, main: mainMin, cross: crossMin),
            max: Size(direction, main: mainMax, cross: crossMax))
    }
}
