import ArgumentParser
import Crypto
import EventTreeJournal
import Foundation

/// `eventtree verify JOURNAL`: checks the file and every record against the hash chain.
struct Verify: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a journal against its hash chain: names the first record that was changed, removed, inserted or moved.",
        discussion: """
            Prints one line that ends with the journal's head (SEQ:HASH). Exits 0 when the journal is \
            intact (every record is covered by a checkpoint that matches), 1 when it is altered (a \
            checkpoint disagrees: the first differing seq) or unproven (records no checkpoint covers, \
            or none at all: the first such seq), 2 when it cannot be read. A head kept outside the file \
            (--expect-head, --checkpoint) also catches a journal cut short or rewritten as a whole; \
            records after that head are unproven.
            """)

    @OptionGroup var options: JournalArguments

    @Option(help: "A head recorded earlier (SEQ:HASH): the journal's chain must pass through it.")
    var expectHead: String?

    @Option(help: "A checkpoint file the writer kept (JournalOptions.checkpointFile): its head must be in the chain.")
    var checkpoint: String?

    @Option(help: "The Ed25519 public key (base64, or a file holding it) that must have signed the checkpoint.")
    var publicKey: String?

    mutating func validate() throws {
        if expectHead != nil && checkpoint != nil { throw ValidationError("give --expect-head or --checkpoint, not both") }
        if let expectHead, JournalHead(expectHead) == nil {
            throw ValidationError("'\(expectHead)' is not a head; write it SEQ:HASH, the hash as 64 hex digits")
        }
        if publicKey != nil && checkpoint == nil { throw ValidationError("--public-key checks the signature of a --checkpoint file") }
    }

    mutating func run(on terminal: CommandTerminal) throws {
        try options.read { journal in try read(journal, on: terminal) }
    }

    private func read(_ journal: String, on terminal: CommandTerminal) throws {
        var expected = expectHead.flatMap(JournalHead.init)
        if let checkpoint {
            let stored = try readCheckpoint(checkpoint)
            if let publicKey {
                guard let signature = stored.signature else {
                    throw CommandFailure(message: "\(checkpoint) holds no signature, but --public-key asks for one", status: 1)
                }
                let key = try Self.publicKey(publicKey)
                guard key.isValidSignature(signature, for: Data(stored.head.description.utf8)) else {
                    throw CommandFailure(message: "the signature in \(checkpoint) does not match the public key: the checkpoint was not written by the key's owner", status: 1)
                }
            }
            expected = stored.head
        }
        let report = try JournalVerifier(journal: journal).verify(expectedHead: expected)
        switch options.format {
        case .json, .jsonl:
            let fields: [(String, JSONValue)] = [
                ("intact", .bool(report.isIntact)), ("verdict_kind", .string(report.verdictKind)),
                ("first_bad_seq", JSONValue(report.firstBadSeq)),
                ("verdict", .string(report.line)), ("records", .integer(report.records)),
                ("checkpoints", .integer(report.checkpoints)), ("unchained", .integer(report.unchained)),
                ("head", JSONValue(report.head?.description)),
                ("pruned_sessions", JSONValue(report.pruned?.sessions)), ("pruned_records", JSONValue(report.pruned?.records)),
                ("pruned_through_seq", JSONValue(report.pruned?.throughSeq)),
            ]
            terminal.write(JSONValue.object(fields).text + "\n")
        case .table, .csv:
            terminal.write(report.line + "\n")
        }
        if !report.isIntact { throw ExitCode(1) }
    }

    private func readCheckpoint(_ path: String) throws -> (head: JournalHead, signature: Data?) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CommandFailure(message: "cannot read the checkpoint file \(path)")
        }
        let words = text.split(whereSeparator: \.isWhitespace)
        guard let first = words.first, let head = JournalHead(String(first)) else {
            throw CommandFailure(message: "\(path) does not start with a head SEQ:HASH")
        }
        let signature = words.count > 1 ? Data(base64Encoded: String(words[1])) : nil
        if words.count > 1 && signature == nil { throw CommandFailure(message: "\(path) has a signature that is not base64") }
        return (head, signature)
    }

    private static func publicKey(_ argument: String) throws -> Curve25519.Signing.PublicKey {
        let text = (try? String(contentsOfFile: argument, encoding: .utf8)) ?? argument
        guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)),
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: bytes)
        else {
            throw CommandFailure(message: "--public-key is neither a base64 Ed25519 public key nor a file holding one")
        }
        return key
    }
}
