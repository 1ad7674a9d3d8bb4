import HeraldTerminal
import Testing

@Suite struct ProgressFormatTests {
    @Test func countsAreGroupedByThousands() {
        #expect(ProgressFormat.count(0) == "0")
        #expect(ProgressFormat.count(999) == "999")
        #expect(ProgressFormat.count(1000) == "1,000")
        #expect(ProgressFormat.count(1_234_567) == "1,234,567")
        #expect(ProgressFormat.count(-12_345) == "-12,345")
    }

    @Test func durationsAreInTheUnitAPersonReads() {
        #expect(ProgressFormat.duration(.milliseconds(3)) == "0.0 s")
        #expect(ProgressFormat.duration(.milliseconds(420)) == "0.4 s")
        #expect(ProgressFormat.duration(.milliseconds(9940)) == "9.9 s")
        #expect(ProgressFormat.duration(.milliseconds(9960)) == "10 s")
        #expect(ProgressFormat.duration(.seconds(41)) == "41 s")
        #expect(ProgressFormat.duration(.seconds(125)) == "2 min 05 s")
        #expect(ProgressFormat.duration(.seconds(3725)) == "1 h 02 min")
    }

    @Test func amountsRatesAndTimeLeft() {
        #expect(ProgressFormat.amount(12_000, of: 1_234_567, "rows") == "12,000 of 1,234,567 rows")
        #expect(ProgressFormat.amount(12_000, of: nil, "rows") == "12,000 rows")
        #expect(ProgressFormat.percent(1, of: 3) == 33)
        #expect(ProgressFormat.percent(0, of: 0) == 100)
        #expect(ProgressFormat.rate(90_420, in: .seconds(2)) == "45,210/s")
        #expect(ProgressFormat.rate(10, in: .zero) == nil)
        #expect(ProgressFormat.remaining(250, of: 1000, in: .seconds(10)) == "30 s")
        #expect(ProgressFormat.remaining(0, of: 1000, in: .seconds(10)) == nil)
    }
}
