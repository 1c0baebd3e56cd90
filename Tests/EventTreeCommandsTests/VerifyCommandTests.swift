import Crypto
import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

@Suite struct VerifyCommandTests {
    @Test func verifyPrintsOneLineEndingWithTheHeadAndExitsOneWhenAltered() async throws {
        try await withDemoJournal { path in
            let intact = try Tool.run(["verify", path])
            #expect(intact.status == 0)
            #expect(intact.stderr == "")
            let head = try #require(intact.stdout.split(separator: " ").last.map { String($0.dropLast()) })
            #expect(JournalHead(head) != nil)
            #expect(intact.stdout.hasPrefix("intact: 98 records in 1 checkpoint match the hash chain; head 113:"))
            let seq = try #require(Int(try JournalReader(path: path).rows("SELECT seq FROM delivery_history LIMIT 1 OFFSET 7")[0][0].description))
            try JournalTampering.changeCall(at: seq, in: path, column: .nanos) { $0 + 1 }
            let altered = try Tool.run(["verify", path, "--format", "json"])
            #expect(altered.status == 1)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(altered.stdout.utf8)) as? [String: Any])
            #expect(json["intact"] as? Bool == false)
            #expect(json["first_bad_seq"] as? Int == seq)
            #expect(json["head"] as? String == head)
        }
    }

    @Test func aRaiseAppendedAfterTheLastCheckpointIsUnprovenEvenWithTheRealHead() async throws {
        try await withDemoJournal { path in
            let intact = try Tool.run(["verify", path])
            let head = try #require(intact.stdout.split(separator: " ").last.map { String($0.dropLast()) })
            let forged = 108 + 50
            try JournalTampering.execute("""
                INSERT INTO j_events (event_id, session_id, type_id, kind, origin_id, mode, payload, finished_back, result)
                SELECT \(forged), session_id, type_id, kind, origin_id, mode, payload, 0, result
                FROM j_events ORDER BY event_id DESC LIMIT 1
                """, on: path)
            let expected = "unproven from seq \(forged): 1 record from this seq on is covered by no checkpoint: the tail of a writer that stopped before chaining them (opening the journal to write chains them) or records added to the file; head \(head)\n"
            for arguments in [["verify", path], ["verify", path, "--expect-head", head]] {
                let result = try Tool.run(arguments)
                #expect(result.status == 1)
                #expect(result.stdout == expected)
            }
            let json = try Tool.run(["verify", path, "--format", "json"])
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(fields["verdict_kind"] as? String == "unproven")
            #expect(fields["first_bad_seq"] as? Int == forged)
        }
    }

    @Test func aJournalWhoseChainWasDeletedIsUnprovenFromItsFirstRecord() async throws {
        try await withDemoJournal { path in
            let first = try #require(try VerifyCommandTests.firstChainedSeq(path))
            try JournalTampering.execute("DELETE FROM j_chain", on: path)
            let result = try Tool.run(["verify", path])
            #expect(result.status == 1)
            #expect(result.stdout == "unproven from seq \(first): the journal has 98 records and no checkpoint: nothing proves them (its chain was removed, or it was never written); head none\n")
        }
    }

    @Test func changedSessionCountsAreAltered() async throws {
        try await withDemoJournal { path in
            let row = try JournalReader(path: path).rows("SELECT session_id, ended_seq, events, steps FROM j_sessions")[0]
            let (session, ended, events, steps) = (row[0].description, row[1].description, row[2].description, row[3].description)
            try JournalTampering.execute("UPDATE j_sessions SET events = 0, dropped = 999", on: path)
            let result = try Tool.run(["verify", path])
            #expect(result.status == 1)
            #expect(result.stdout.hasPrefix("altered at seq \(ended): session \(session) stores 0 events, \(steps) steps and 999 dropped records, but its chained rows hold \(events), \(steps) and 0: its counts were changed; head 113:"))
        }
    }

    static func firstChainedSeq(_ path: String) throws -> Int? {
        let stream = try JournalReader(path: path).chainRecords()
        return stream.current?.seq
    }

    @Test func aSignedCheckpointFileIsCheckedAgainstThePublicKey() async throws {
        try await withTemporaryDirectory { directory in
            let key = Curve25519.Signing.PrivateKey()
            var options = JournalOptions()
            options.checkpointSigningKey = key
            options.checkpointFile = directory + "/head.txt"
            let path = directory + "/signed.eventtree"
            let journal = try Journal(path: path, options: options)
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(NamedEvent.self, label: "h") { _, _ in .handled }
            app.raise(NamedEvent("one"))
            bus.end()
            try journal.close()
            let publicKey = key.publicKey.rawRepresentation.base64EncodedString()
            let good = try Tool.run(["verify", path, "--checkpoint", directory + "/head.txt", "--public-key", publicKey])
            #expect(good.status == 0, "\(good.stderr)")
            let stranger = Curve25519.Signing.PrivateKey().publicKey.rawRepresentation.base64EncodedString()
            let bad = try Tool.run(["verify", path, "--checkpoint", directory + "/head.txt", "--public-key", stranger])
            #expect(bad.status == 1)
            #expect(bad.stderr == "error: the signature in \(directory)/head.txt does not match the public key: the checkpoint was not written by the key's owner\n")
            let malformed = try Tool.run(["verify", path, "--expect-head", "12:beef"])
            #expect(malformed.status == 2)
            #expect(malformed.stderr == "error: '12:beef' is not a head; write it SEQ:HASH, the hash as 64 hex digits\n")
        }
    }
}
