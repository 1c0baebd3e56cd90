import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// `eventtree prune` and `eventtree extract`, run as a user would on the demo's journal.
@Suite struct RetentionCommandTests {
    /// The demo's journal with six sessions; their ids.
    static func sixSessions(in directory: String) throws -> [Int] {
        let demo = try Tool.run(["demo", "--sessions", "6", "--journal", "demo.eventtree"], in: directory)
        #expect(demo.status == 0, "\(demo.stderr)")
        return try JournalReader(path: directory + "/demo.eventtree").sessionIDs().map(\.rawValue)
    }

    @Test func aSixSessionJournalPrunedToTwoShrinksVerifiesAndNamesWhatWent() async throws {
        try await withTemporaryDirectory { directory in
            let ids = try Self.sixSessions(in: directory)
            #expect(ids.count == 6)
            let path = directory + "/demo.eventtree"
            let before = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            let pruned = try Tool.run(["prune", "demo.eventtree", "--keep-sessions", "2"], in: directory)
            #expect(pruned.status == 0, "\(pruned.stderr)")
            #expect(pruned.stdout.hasPrefix("pruned 4 sessions (\(ids[..<4].map(String.init).joined(separator: ", "))): "))
            #expect(pruned.stdout.contains("through seq \(ids[4] - 1), by sessions;"))
            let after = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            #expect(after < before)

            let verify = try Tool.run(["verify", "demo.eventtree"], in: directory)
            #expect(verify.status == 0, "\(verify.stdout)")
            #expect(verify.stdout.hasPrefix("intact: "))
            #expect(verify.stdout.contains("; pruned before it: 4 sessions ("))
            let table = try Tool.run(["sessions", "demo.eventtree"], in: directory)
            #expect(table.stdout.hasSuffix("\n(4 earlier sessions were pruned, through seq \(ids[4] - 1), by sessions)\n"))
            let sessions = try Tool.run(["sessions", "demo.eventtree", "--format", "csv"], in: directory)
            let listed: [String] = sessions.stdout.split(separator: "\n").dropFirst().map { String($0.prefix { $0 != "," }) }
            #expect(listed == ids[4...].map(String.init))
            let replay = try Tool.run(["replay", "demo.eventtree"], in: directory)
            #expect(replay.status == 0)
            #expect(replay.stdout.contains(" 0 diverged"))

            // Within its limits now: nothing to do, and the file is not touched.
            let bytes = FileManager.default.contents(atPath: path)
            let again = try Tool.run(["prune", "demo.eventtree", "--keep-sessions", "2"], in: directory)
            #expect(again.stdout == "nothing to prune: demo.eventtree is within its limits (or its oldest session is under way)\n")
            #expect(FileManager.default.contents(atPath: path) == bytes)
        }
    }

    @Test func pruneRefusesWhatIsNotAJournalAndBadLimits() async throws {
        try await withTemporaryDirectory { directory in
            _ = FileManager.default.createFile(atPath: directory + "/notes.txt", contents: Data("not a journal".utf8))
            let notJournal = try Tool.run(["prune", "notes.txt", "--keep-sessions", "1"], in: directory)
            #expect(notJournal.status == 2)
            #expect(notJournal.stderr == "error: \(directory)/notes.txt is not an SQLite database\n")
            #expect(FileManager.default.contents(atPath: directory + "/notes.txt") == Data("not a journal".utf8))
            let missing = try Tool.run(["prune", "none.eventtree", "--keep-sessions", "1"], in: directory)
            #expect(missing.status == 2)
            #expect(!FileManager.default.fileExists(atPath: directory + "/none.eventtree"))
            let noLimit = try Tool.run(["prune", "notes.txt"], in: directory)
            #expect(noLimit.stderr == "error: give at least one limit: --max-size, --max-age or --keep-sessions\n")
            let badSize = try Tool.run(["prune", "notes.txt", "--max-size", "5Q"], in: directory)
            #expect(badSize.status == 2)
        }
    }

    @Test func anExtractedSessionVerifiesAloneAndAgainstTheSourcesHead() async throws {
        try await withTemporaryDirectory { directory in
            let ids = try Self.sixSessions(in: directory)
            let source = FileManager.default.contents(atPath: directory + "/demo.eventtree")
            let extract = try Tool.run(["extract", "demo.eventtree", "--session", "\(ids[2])", "-o", "bug.eventtree"], in: directory)
            #expect(extract.status == 0, "\(extract.stderr)")
            #expect(FileManager.default.contents(atPath: directory + "/demo.eventtree") == source)
            let head = try #require(extract.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .newlines) })
            #expect(extract.stdout.hasPrefix("extracted session \(ids[2]): "))
            #expect(head.hasPrefix("\(ids[3] - 1):"))

            let verify = try Tool.run(["verify", "bug.eventtree"], in: directory)
            #expect(verify.status == 0, "\(verify.stdout)")
            #expect(verify.stdout.contains("pruned before it: 2 sessions ("))
            #expect(verify.stdout.contains("by extract"))
            // Checked against the head the source printed: the chain passes through it, and
            // only the anchor comes after.
            let tied = try Tool.run(["verify", "bug.eventtree", "--expect-head", head], in: directory)
            #expect(tied.stdout.hasPrefix("unproven from seq \(ids[3]): records from this seq on come after the expected head"))
            let sessions = try Tool.run(["sessions", "bug.eventtree", "--format", "csv"], in: directory)
            #expect(sessions.stdout.split(separator: "\n").count == 2)
            let replay = try Tool.run(["replay", "bug.eventtree"], in: directory)
            #expect(replay.stdout.contains(" 0 diverged"))

            let overJournal = try Tool.run(["extract", "demo.eventtree", "--session", "\(ids[2])", "-o", "demo.eventtree-wal"], in: directory)
            #expect(overJournal.stderr == "error: demo.eventtree-wal is the journal's write-ahead log; choose another --output\n")
            let unknown = try Tool.run(["extract", "demo.eventtree", "--session", "2", "-o", "x.eventtree"], in: directory)
            #expect(unknown.stderr == "error: demo.eventtree: it has no session 2; 'eventtree sessions demo.eventtree' lists them\n")
            #expect(!FileManager.default.fileExists(atPath: directory + "/x.eventtree"))
        }
    }
}
