/// One numbered SQL file of the top-level `Migrations/` folder, embedded at build time.
struct Migration: Sendable {
    /// Its number: 1 for `0001_….sql`.
    let version: Int
    /// Its file name without extension.
    let name: String
    /// Its text.
    let sql: String

    /// FNV-1a (64 bits) of the text, in hex: detects a migration edited after it shipped.
    var checksum: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sql.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
