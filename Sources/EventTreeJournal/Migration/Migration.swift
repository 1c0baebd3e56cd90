/// One numbered SQL file of a `Migrations/` folder (the journal's at the top level, or a
/// target's own for another database), embedded at build time.
package struct Migration: Sendable {
    /// Its number: 1 for `0001_….sql`.
    package let version: Int
    /// Its file name without extension.
    package let name: String
    /// Its text.
    package let sql: String

    /// A migration (the embedded files are made into these at build time).
    package init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// FNV-1a (64 bits) of the text, in hex: detects a migration edited after it shipped.
    package var checksum: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sql.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
