import EventTreeJournal
import Foundation
import Testing

private struct Inner: Codable, Equatable { var flag: Bool; var ratio: Double }
private enum Choice: Codable, Equatable { case none, some(Int, label: String) }
private struct Everything: Codable, Equatable {
    var text = "quote \" backslash \\ newline \n tab \t bell \u{7} é 🎉"
    var small: Int8 = -3
    var big: UInt64 = 18_000_000_000_000_000_000
    var float: Float = 1.5
    var whole = 2.0
    var optional: String?
    var list = [1, 2, 3]
    var nested = Inner(flag: true, ratio: 0.25)
    var table = ["zeta": 1, "alpha": 2, "mid": 3]
    var choice = Choice.some(7, label: "x")
    var date = Date(timeIntervalSinceReferenceDate: 1_000)
}

@Suite struct PayloadEncoderTests {
    @Test func itWritesWhatFoundationsEncoderWritesInSubstance() throws {
        let value = Everything()
        let ours = try PayloadEncoder.json(value)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let foundation = try encoder.encode(value)
        let parsedOurs = try JSONSerialization.jsonObject(with: Data(ours.utf8)) as? NSDictionary
        let parsedFoundation = try JSONSerialization.jsonObject(with: foundation) as? NSDictionary
        #expect(parsedOurs == parsedFoundation)
        #expect(try JSONDecoder().decode(Everything.self, from: Data(ours.utf8)) == value)
        #expect(ours.contains(#""table":{"alpha":2,"mid":3,"zeta":1}"#))
    }

    @Test func smallEventsAreCompactAndKeysSorted() throws {
        struct Ping: Encodable { var n = 1; var a = "x" }
        #expect(try PayloadEncoder.json(Ping()) == #"{"a":"x","n":1}"#)
        struct Empty: Encodable {}
        #expect(try PayloadEncoder.json(Empty()) == "{}")
    }

    @Test func nonFiniteNumbersAreRefused() {
        struct Bad: Encodable { var x = Double.nan }
        #expect(throws: EncodingError.self) { try PayloadEncoder.json(Bad()) }
    }
}
