/// A set of phases a handler listens in.
///
/// The default, ``standard``, is every phase but ``Phase/capture``: like a DOM listener,
/// a handler hears the capture phase only when it asks to.
public struct Phases: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// One bit per ``Phase``.
    public let rawValue: Int

    /// Creates a set from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The set holding `phase` alone.
    public init(_ phase: Phase) { self.init(rawValue: 1 << phase.rawValue) }

    /// ``Phase/capture``.
    public static let capture = Phases(.capture)
    /// ``Phase/target``.
    public static let target = Phases(.target)
    /// ``Phase/bubble``.
    public static let bubble = Phases(.bubble)
    /// ``Phase/propagate``.
    public static let propagate = Phases(.propagate)
    /// Target, bubble and propagate: every phase but capture. The default for handlers.
    public static let standard: Phases = [.target, .bubble, .propagate]
    /// Every phase.
    public static let all: Phases = [.capture, .target, .bubble, .propagate]

    /// Whether `phase` is in the set.
    public func contains(_ phase: Phase) -> Bool { rawValue & (1 << phase.rawValue) != 0 }

    /// The phases in order, comma-separated (`target,bubble`), as the journal stores them.
    public var description: String {
        Phase.allCases.filter(contains).map(\.description).joined(separator: ",")
    }

    /// Parses the form ``description`` prints.
    public init?(names: String) {
        var phases: Phases = []
        for name in names.split(separator: ",") {
            guard let phase = Phase(name: String(name)) else { return nil }
            phases.insert(Phases(phase))
        }
        self = phases
    }
}
