import Crypto
import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// An event carrying credentials under names the default deny-list knows, at several depths.
struct SignedIn: Event {
    struct Device: Codable, Sendable {
        var model: String
        var sessionCookie: String
    }

    var user: String
    var password: String
    var apiKey: String
    var device: Device
    var headers: [[String: String]]
}

/// An event declaring its own redacted field.
struct PaymentSubmitted: Event {
    var amount: Int
    var card: String
    static let redactedFields: Set<String> = ["card"]
}

@Suite struct RedactionTests {
    static let signIn = SignedIn(
        user: "ada", password: "hunter2", apiKey: "k-123",
        device: .init(model: "phone", sessionCookie: "c-456"),
        headers: [["X-Auth-Token": "tok-789", "Accept": "json"]])

    /// Records `events` into a fresh journal with `options` and returns each event's stored
    /// payload, and the bytes of the journal and its write-ahead log.
    static func record(_ events: [any Event], options: JournalOptions) async throws -> (payloads: [String], files: Data) {
        try await withTemporaryJournal(options: options) { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            for event in events { app.raise(event) }
            try journal.flush()
            let payloads = try lines(journal.path, "SELECT payload FROM event_history ORDER BY event_id")
            let files = (bytes(journal.path) ?? Data()) + (bytes(journal.path + "-wal") ?? Data())
            return (payloads, files)
        }
    }

    @Test func theDefaultDenyListDropsCredentialsAtAnyDepthAndInAnySpelling() async throws {
        let (payloads, files) = try await Self.record([Self.signIn], options: JournalOptions())
        #expect(payloads == [
            #"{"apiKey":"[redacted]","device":{"model":"phone","sessionCookie":"[redacted]"},"#
                + #""headers":[{"Accept":"json","X-Auth-Token":"[redacted]"}],"password":"[redacted]","user":"ada"}"#,
        ])
        for secret in ["hunter2", "k-123", "c-456", "tok-789"] {
            #expect(files.range(of: Data(secret.utf8)) == nil, "\(secret) is in the journal's bytes")
        }
    }

    @Test func aKeyedHashMatchesEqualSecretsWithoutStoringThem() async throws {
        var options = JournalOptions()
        options.redaction.replacement = .keyedHash(SymmetricKey(data: Data("app-key".utf8)))
        let again = SignedIn(user: "bob", password: "hunter2", apiKey: "k-999", device: Self.signIn.device, headers: [])
        let (payloads, files) = try await Self.record([Self.signIn, again], options: options)
        let expected = HMAC<SHA256>.authenticationCode(for: Data("hunter2".utf8), using: SymmetricKey(data: Data("app-key".utf8)))
        let hash = "[hmac:" + expected.prefix(8).map { String(format: "%02x", $0) }.joined() + "]"
        #expect(payloads[0].contains(#""password":"\#(hash)""#))
        #expect(payloads[1].contains(#""password":"\#(hash)""#))
        #expect(!payloads[1].contains("k-999") && !payloads[0].contains("k-123"))
        #expect(files.range(of: Data("hunter2".utf8)) == nil)
    }

    @Test func anEventTypeRedactsTheFieldsItDeclaresWhateverTheirType() async throws {
        let (payloads, _) = try await Self.record([PaymentSubmitted(amount: 12, card: "4111")], options: JournalOptions())
        #expect(payloads == [#"{"amount":12,"card":"[redacted]"}"#])
    }

    @Test func anAppExtendsTheDenyListOrTurnsRedactionOff() async throws {
        var extended = JournalOptions()
        extended.redaction.deniedFieldNames.insert("user")
        let (redacted, _) = try await Self.record([PaymentSubmitted(amount: 1, card: "4111"), Self.signIn], options: extended)
        #expect(redacted[1].contains(#""user":"[redacted]""#))

        // Without the deny-list, a type's own fields are still redacted.
        var noDenyList = JournalOptions()
        noDenyList.redaction.deniedFieldNames = []
        let (declared, _) = try await Self.record([PaymentSubmitted(amount: 1, card: "4111"), Self.signIn], options: noDenyList)
        #expect(declared[0] == #"{"amount":1,"card":"[redacted]"}"#)
        #expect(declared[1].contains(#""password":"hunter2""#))

        var off = JournalOptions()
        off.redaction = .none
        let (verbatim, _) = try await Self.record([Self.signIn], options: off)
        let (verbatimTypes, _) = try await Self.record([PaymentSubmitted(amount: 1, card: "4111"), Self.signIn], options: off)
        #expect(verbatimTypes[0] == #"{"amount":1,"card":"4111"}"#)
        #expect(verbatim[0].contains(#""password":"hunter2""#))
    }

    @Test func aRedactedJournalVerifiesIntact() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            EventNode("app", bus: bus).raise(Self.signIn)
            bus.end()
            try journal.close()
            let report = try JournalVerifier(journal: journal.path).verify()
            #expect(report.verdict == .intact)
        }
    }

    @Test func sessionsStoreTheHostNameOnlyWhenTheAppOptsIn() async throws {
        for recordsHostName in [false, true] {
            var options = JournalOptions()
            options.recordsHostName = recordsHostName
            let host = try await withTemporaryJournal(options: options) { journal in
                let bus = EventBus(recorder: journal)
                withExtendedLifetime(bus) {}
                try journal.flush()
                return try lines(journal.path, "SELECT host FROM j_sessions")
            }
            #expect(host == [recordsHostName ? ProcessInfo.processInfo.hostName : ""])
        }
    }

    @Test func aNameShorterThanEveryDeniedWordOrWithoutOneIsKept() {
        #expect(!Redaction.isRedacted("hunter2"))
        #expect(Redaction.isRedacted("[redacted]"))
        #expect(Redaction.isRedacted("[hmac:0123456789abcdef]"))
    }
}
