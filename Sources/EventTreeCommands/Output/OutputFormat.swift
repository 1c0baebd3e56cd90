import ArgumentParser

/// How a command prints its results. Field names are stable across versions.
public enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// An aligned table for people (color only on a terminal).
    case table
    /// One JSON array of objects.
    case json
    /// One JSON object per line.
    case jsonl
    /// Comma-separated values with a header row (RFC 4180 quoting).
    case csv
}
