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
            #expect(intact.stdout.hasPrefix("intact: 94 records in 1 checkpoint match the hash chain; head 108:"))
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
