/// Standard output written in chunks as a command produces it, for output that grows with
/// the journal: what is written is not held, and the terminal is called once per chunk
/// rather than once per line.
final class ChunkedOutput {
    private let terminal: CommandTerminal
    private var pending = ""
    /// How much text gathers before it is written.
    private static let chunk = 1 << 16

    /// Output to `terminal`'s standard output.
    init(_ terminal: CommandTerminal) {
        self.terminal = terminal
    }

    /// Appends `text`, writing what has gathered once it reaches a chunk.
    func write(_ text: String) {
        pending += text
        if pending.utf8.count >= Self.chunk { flush() }
    }

    /// Writes what has gathered. (Nothing is written on its own: a command that fails half
    /// way leaves out what it had not flushed.)
    func flush() {
        guard !pending.isEmpty else { return }
        terminal.write(pending)
        pending = ""
    }
}
