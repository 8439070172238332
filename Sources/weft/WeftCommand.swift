import ArgumentParser

@main
struct WeftCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "weft",
        abstract: "Weft: Texture's layout model for Swift, concurrent and fast.",
        subcommands: [DemoCommand.self, BenchCommand.self, LayoutCommand.self]
    )
}

/// Bad input: printed as one line on standard error, exit status 2.
struct InputError: Error, CustomStringConvertible {
    let description: String
}

extension ParsableCommand {
    /// Runs `body`, turning an ``InputError`` into its one line on standard error and exit status 2.
    func reportingInputErrors(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as InputError {
            printError("weft: \(error.description)")
            throw ExitCode(2)
        }
    }
}
