import EventTreeCommands
import EventTreeReport
import Testing

/// How recorded text is shown to people (escaped, cut) and written for spreadsheets
/// (formulas neutralised), value by value.
@Suite struct InertTextTests {
    @Test func controlAndReorderingCharactersAreShownAsEscapes() {
        #expect(VisibleText.shown("a\u{1B}[2Jb\nc\rd\te\u{7F}f\u{9B}g\u{85}h\u{0}i\u{7}") == #"a\e[2Jb\nc\rd\te\u{7F}f\u{9B}g\u{85}h\u{0}i\u{7}"#)
        #expect(VisibleText.shown("\r\n") == #"\r\n"#)
        #expect(VisibleText.shown("\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}")
            == #"\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}"#)
        #expect(VisibleText.shown("\u{200E}\u{200F}\u{61C}\u{2028}\u{2029}\u{FFFF}") == #"\u{200E}\u{200F}\u{61C}\u{2028}\u{2029}\u{FFFF}"#)
        // Printable text, backslashes and other scripts as they are.
        #expect(VisibleText.shown(#"C:\path é 日本 👩‍👩‍👧 \n"#) == #"C:\path é 日本 👩‍👩‍👧 \n"#)
    }

    @Test func longValuesAreCutWithAnEllipsisNeverInsideAnEscape() {
        let limit = VisibleText.limit
        #expect(VisibleText.shown(String(repeating: "x", count: limit)) == String(repeating: "x", count: limit))
        #expect(VisibleText.shown(String(repeating: "x", count: limit + 1)) == String(repeating: "x", count: limit - 1) + "…")
        #expect(VisibleText.shown(String(repeating: "x", count: 10_000_000)) == String(repeating: "x", count: limit - 1) + "…")
        // `\u{7F}` would end past the limit: it goes whole.
        #expect(VisibleText.shown(String(repeating: "x", count: limit - 2) + "\u{7F}y") == String(repeating: "x", count: limit - 2) + "…")
        #expect(VisibleText.shown("abc\u{1B}def", limit: 5) == "abc…")
        #expect(VisibleText.shown("ab\u{1B}def", limit: 5) == #"ab\e…"#)
        #expect(VisibleText.shown(String(repeating: "\n", count: 5_000), limit: nil).count == 10_000)
    }

    @Test func aTableShowsCellsEscapedAndCut() {
        let long = String(repeating: "p", count: 1_000)
        let table = Table(columns: ["name", "n", "note"], rows: [["\u{1B}[2Jx\ny", 1, .text(long)], [.text(long), -3, "a\u{202E}b"]])
        let padded = String(repeating: "p", count: VisibleText.limit - 1) + "…"
        #expect(table.rendered(as: .table) == """
            name\(String(repeating: " ", count: VisibleText.limit - 2))n   note
            \\e[2Jx\\ny\(String(repeating: " ", count: VisibleText.limit - 7))1   \(long)
            \(padded)  -3  a\\u{202E}b

            """)
        // JSON keeps every value whole.
        #expect(table.rendered(as: .jsonl).contains(long + "\"}"))
    }

    @Test func csvCellsThatWouldStartAFormulaAreNeutralised() {
        let table = Table(columns: ["a", "b"], rows: [
            ["=1+2", -3], ["-1.5", "@x"], ["+", "\tx"], ["\rx", "-2+3"], ["+7", "1e5"], ["-1e-3", "-inf"],
            ["a\r\nb", "'q"], [.null, "=HYPERLINK(\"http://evil.example\",\"click\")"],
        ])
        #expect(table.rendered(as: .csv) == """
            a,b
            "'=1+2",-3
            -1.5,"'@x"
            "'+","'\tx"
            "'\rx","'-2+3"
            +7,1e5
            -1e-3,"'-inf"
            "a\r\nb",'q
            ,"'=HYPERLINK(""http://evil.example"",""click"")"

            """)
    }
}
