/// The fuzzer's bytes, read as a stream of choices.
///
/// Every byte sequence is a valid stream: past the end, every read returns zero (the first
/// choice), so that libFuzzer's byte mutations always make a meaningful input, and a short
/// input means "the simple choices".
public struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    /// Reads `bytes`.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Reads libFuzzer's buffer.
    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        self.init(Array(UnsafeBufferPointer(start: data, count: size)))
    }

    /// Whether every byte was read.
    public var isAtEnd: Bool { position >= bytes.count }

    /// How many bytes are left.
    public var remaining: Int { max(0, bytes.count - position) }

    /// The next byte (0 past the end).
    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A number in `0..<count` (one byte, or two when `count` exceeds 256).
    public mutating func index(below count: Int) -> Int {
        guard count > 1 else { return 0 }
        let raw = count > 256 ? Int(byte()) << 8 | Int(byte()) : Int(byte())
        return raw % count
    }

    /// One of `options`.
    public mutating func pick<T>(_ options: [T]) -> T {
        options[index(below: options.count)]
    }

    /// A boolean.
    public mutating func bool() -> Bool { byte() & 1 == 1 }

    /// Eight bytes as a signed integer (any value, extremes included).
    public mutating func int64() -> Int {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return Int(Int64(bitPattern: value))
    }

    /// An integer that is usually interesting: small, an extreme, or any 64-bit value.
    public mutating func interestingInt() -> Int {
        switch byte() % 4 {
        case 0: Int(byte()) - 8
        case 1: pick(Self.extremeIntegers)
        case 2: pick(Self.extremeIntegers) &+ (Int(byte()) - 128)
        default: int64()
        }
    }

    /// Integers where code that computes with a number read from a file tends to break.
    public static let extremeIntegers: [Int] = [
        0, 1, -1, 2, 31, 32, 33, 255, 256, 4_096, 65_536, Int(Int32.max), Int(Int32.min), 1 << 32, 1 << 53,
        -(1 << 53), 100_000_000_000, Int.max, Int.min, Int.max - 1, Int.min + 1, Int.max / 32, Int.max / 2,
    ]

    /// Up to `limit` bytes, their count read first.
    public mutating func bytes(upTo limit: Int) -> [UInt8] {
        let count = min(index(below: limit + 1), remaining)
        return (0..<count).map { _ in byte() }
    }

    /// Every byte not read yet.
    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }

    /// Up to `limit` bytes as a string (invalid UTF-8 repaired, as an argument would be).
    public mutating func string(upTo limit: Int) -> String {
        String(decoding: bytes(upTo: limit), as: UTF8.self)
    }
}
