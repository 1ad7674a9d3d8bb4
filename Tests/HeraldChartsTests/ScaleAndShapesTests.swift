import Foundation
import Testing

@testable import HeraldCharts

/// Round ticks, the numbers and names SVG gets, the sparkline and the timeline.
@Suite struct ScaleAndShapesTests {
    @Test(
        arguments: [
            (0, [0, 1]), (3, [0, 1, 2, 3]), (7, [0, 2, 4, 6, 8]), (10, [0, 5, 10]), (1000, [0, 250, 500, 750, 1000]),
            (1234, [0, 500, 1000, 1500]), (8900, [0, 2500, 5000, 7500, 10000]), (45_000, [0, 20000, 40000, 60000]),
        ] as [(Double, [Double])])
    func ticksAreRoundNumbersCoveringTheLargestValue(_ value: Double, _ expected: [Double]) {
        let scale = NiceScale(covering: value)
        #expect(scale.ticks == expected, "\(value): \(scale.ticks)")
        #expect(scale.maximum >= value)
    }

    @Test func tickLabelsAreShort() {
        #expect(NiceScale.label(0) == "0")
        #expect(NiceScale.label(900) == "900")
        #expect(NiceScale.label(1500) == "1.5k")
        #expect(NiceScale.label(20_000) == "20k")
        #expect(NiceScale.label(2_500_000) == "2.5M")
    }

    @Test func numbersIdentifiersAndColours() {
        #expect(SVG.number(12) == "12" && SVG.number(12.5) == "12.5" && SVG.number(1 / 3) == "0.33" && SVG.number(0.05) == "0.05")
        #expect(SVG.number(-0.5) == "-0.5" && SVG.number(.nan) == "0")
        #expect(SVG.identifier("Web Push:1") == "web-push-1")
        #expect(SVG.colour("#1f5fbf") == "#1f5fbf" && SVG.colour("red\" onload=\"x") == "#1c2430")
        #expect(SVG.grouped(1_234_567) == "1,234,567" && SVG.grouped(12) == "12")
    }

    @Test func aSparklineHasAPointPerValueAndMarksThePeak() {
        let svg = Sparkline(id: "m1", values: [1, 5, 3, 0], label: "Peak 5/s <ok>", width: 100, height: 20).svg()
        #expect(svg.contains(#"data-points="4""#))
        #expect(svg.contains(#"<polyline points="3.5,13.9 34.5,3.5 65.5,8.7 96.5,16.5""#), "\(svg)")
        #expect(svg.contains(#"<circle cx="34.5" cy="3.5""#), "the peak marked")
        #expect(svg.contains("Peak 5/s &lt;ok&gt;") && svg.contains(#"role="img""#))
    }

    @Test func aLongSparklineIsAveragedToItsWidth() {
        let svg = Sparkline(id: "m2", values: Array(repeating: 2, count: 1000) + Array(repeating: 4, count: 1000), label: "", width: 100)
            .svg()
        #expect(svg.contains(#"data-points="100""#))
        let line = Sparkline(id: "m2", values: [2, 2, 4, 4], label: "", width: 2).points
        #expect(line == [2, 4])
    }

    @Test func aTimelinePlacesEventsByTimeInTheirLanesWithTheirShapes() {
        let timeline = Timeline(
            id: "device", title: "History", summary: "2 sent, 1 failed",
            lanes: [
                Timeline.Lane(key: "sent", label: "Sent", mark: .circle, colour: "#1e7d3a"),
                Timeline.Lane(key: "failed", label: "Failed <x>", mark: .cross, colour: "#b3261e"),
            ],
            events: [
                Timeline.Event(lane: 0, at: 1000, label: "sent at 1"), Timeline.Event(lane: 0, at: 2000, label: "sent at 2"),
                Timeline.Event(lane: 1, at: 1500, label: "failed"), Timeline.Event(lane: 1, at: 9000, label: "outside"),
                Timeline.Event(lane: 5, at: 1500, label: "no lane"),
            ],
            range: 1000...2000, axisLabels: [(1000, "start"), (2000, "end")], width: 296)
        let svg = timeline.svg()
        #expect(svg.components(separatedBy: #"data-lane="sent""#).count - 1 == 2)
        #expect(svg.components(separatedBy: #"data-lane="failed""#).count - 1 == 1)
        #expect(!svg.contains("outside") && !svg.contains("no lane"))
        // The plot runs from 80 to 286: the first at its start, the last at its end, the failure half way.
        #expect(svg.contains(#"<circle cx="80""#) && svg.contains(#"<circle cx="286""#))
        #expect(timeline.x(1500) == 183)
        #expect(svg.contains("Failed &lt;x&gt;") && svg.contains(">start</text>"))
    }

    @Test func aSwatchCarriesItsOwnPattern() {
        let series = ChartSeries(key: "auth", label: "Auth", fill: .crossHatch(colour: "#37474f", ground: "#e3e7ea"))
        let swatch = series.swatch(idPrefix: "legend")
        #expect(swatch.contains(#"<pattern id="legend-auth""#) && swatch.contains(#"fill="url(#legend-auth)""#))
        #expect(swatch.contains(#"aria-hidden="true""#))
    }
}
