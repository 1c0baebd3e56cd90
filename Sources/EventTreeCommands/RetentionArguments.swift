import ArgumentParser

/// A size in bytes, written `500000`, `512k`, `5MB`, `5MiB` or `2G` (k, M and G are
/// powers of 1,024 with or without `i`/`B`).
struct ByteSize: ExpressibleByArgument {
    let bytes: Int

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let digits = text.prefix { $0.isNumber }
        var unit = text.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
        if unit.hasSuffix("b") { unit.removeLast() }
        if unit.hasSuffix("i") { unit.removeLast() }
        let scale: Int? = switch unit {
        case "": 1
        case "k": 1 << 10
        case "m": 1 << 20
        case "g": 1 << 30
        default: nil
        }
        guard let scale, let value = Int(digits), value > 0, value <= Int.max / scale else { return nil }
        bytes = value * scale
    }

    static var defaultCompletionKind: CompletionKind { .list(["1MiB", "10MiB", "100MiB"]) }
}

/// A length of time, written `90s`, `30m`, `6h` or `7d`.
struct AgeLimit: ExpressibleByArgument {
    let duration: Duration

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        guard let last = text.last, let value = Int(text.dropLast()), value > 0 else { return nil }
        let seconds: Int? = switch last {
        case "s": 1
        case "m": 60
        case "h": 3_600
        case "d": 86_400
        default: nil
        }
        guard let seconds, value <= Int.max / seconds else { return nil }
        duration = .seconds(value * seconds)
    }

    static var defaultCompletionKind: CompletionKind { .list(["1h", "6h", "1d", "7d", "30d"]) }
}
