import Crypto
import Foundation

/// The head of a journal's hash chain at a moment, as the writer hands it out (see
/// ``JournalOptions/onCheckpoint``), signed when the journal has a signing key.
public struct JournalCheckpoint: Sendable, Hashable {
    /// The chain's head: the last chained record's seq and the hash after it.
    public let head: JournalHead
    /// The Ed25519 signature of the head's text (`SEQ:HASH`), when the journal signs.
    public let signature: Data?

    /// Signs `head` with `key`, when there is one.
    init(head: JournalHead, signingKey key: Curve25519.Signing.PrivateKey?) {
        self.head = head
        signature = try? key?.signature(for: Data(head.description.utf8))
    }

    /// `SEQ:HASH`, then the base64 signature when there is one: what the checkpoint file holds.
    public var line: String {
        signature.map { "\(head) \($0.base64EncodedString())" } ?? head.description
    }
}
