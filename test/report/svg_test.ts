/**
 * Issue 36: the one SVG renderer of a figure spec, checked against coordinates and ticks worked
 * out by hand from the frame (360 × 260, margins left 56, right 12, top 28, bottom 40: the plot
 * spans x 56…348 and y 28…220).
 *
 * @module
 */
import assert from "node:assert/strict";
import { distributionSeries, type Figure, type Panel } from "../../src/report/figure.ts";
import { figureSvg } from "../../src/report/svg.ts";

/** The text of every `<text>` element, in order. */
function texts(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map(([, t]) => t);
}

/** A one-panel figure. */
function single(panel: Panel, extra: Partial<Figure> = {}): string {
  return figureSvg({ title: "t", panels: [panel], legend: [], ...extra });
}

Deno.test("`figureSvg()` places a line's points on the covering ticks of both axes", () => {
  const svg = single({
    title: "P",
    xLabel: "x",
    yLabel: "y",
    series: [{ label: "s", color: "#000", points: [[0, 0], [1, 1], [2, 0.5]] }],
  });
  // x: 0…2, step 0.5 → x = 56 + 146·v; y: 0…1, step 0.2 → y = 220 − 192·v.
  assert.match(
    svg,
    /<path d="M56\.0,220\.0 L202\.0,28\.0 L348\.0,124\.0" fill="none" stroke="#000"/,
  );
  assert.deepEqual(texts(svg), [
    "P",
    ...["0.0", "0.5", "1.0", "1.5", "2.0"],
    ...["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"],
    "x",
    "y",
  ]);
  assert.match(svg, /<text x="202\.0" y="234" text-anchor="middle">1\.0<\/text>/);
  assert.match(svg, /<line x1="53" y1="104\.8" x2="348" y2="104\.8" stroke="#ddd"\/>/);
  // Three points marked, of radius 2.6.
  assert.equal(svg.match(/<circle [^>]*r="2\.6"/g)?.length, 3);
  // No legend and no caption: the figure is the panel's height.
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 360 260"/);
});

Deno.test("`figureSvg()` draws a step series across then up, and a log x axis at the data's x", () => {
  const step = single({
    title: "",
    xLabel: "x",
    yLabel: "F",
    series: [{ ...distributionSeries("d", "#111", [1, 0], { step: true }), className: "cdf" }],
  });
  // Points (0, 0.5), (1, 1): x 0…1 step 0.2 → 56 + 292·v; y 0…1 → 220 − 192·v.
  assert.match(step, /<path class="cdf" d="M56\.0,124\.0H348\.0V28\.0"/);
  assert.ok(!step.includes("font-weight"), "no title element for an empty title");
  const log = single({
    title: "L",
    xLabel: "ε",
    yLabel: "v",
    logX: true,
    logY: true,
    series: [{ label: "s", color: "#000", points: [[0.5, 10], [5, 100], [-1, 3]] }],
  });
  // The x ticks are the points' x (the non-positive one left out), at the axis's ends.
  assert.deepEqual(texts(log).slice(1, 3), ["0.5", "5"]);
  // y: 10…100 widened to the decades 10…100 → 10 at the bottom, 100 at the top.
  assert.match(log, /<path d="M56\.0,220\.0 L348\.0,28\.0"/);
});

Deno.test("`figureSvg()` draws bars from 0 and intervals side by side in their bands", () => {
  const bars = single({
    title: "B",
    xLabel: "share",
    yLabel: "",
    bands: ["a", "<b>"],
    series: [
      { kind: "bars", label: "c", color: "#222", className: "bar c", values: [0.2, 0.4] },
      { kind: "bars", label: "s", color: "#00f", values: [0.3, 0.1] },
    ],
  });
  // x: 0…0.4, step 0.1 → 56 + 730·v; bands of 96, slots of 32: bar centres at 60, 92, 156, 188.
  assert.match(
    bars,
    /<rect class="bar c" x="56\.0" y="47\.2" width="146\.0" height="25\.6" fill="#222">/,
  );
  assert.match(bars, /<rect x="56\.0" y="79\.2" width="219\.0" height="25\.6" fill="#00f">/);
  assert.match(bars, /<rect class="bar c" x="56\.0" y="143\.2" width="292\.0"/);
  assert.match(
    bars,
    /<text x="51" y="172\.0" text-anchor="end" dominant-baseline="middle">&lt;b&gt;/,
  );
  assert.deepEqual(texts(bars).slice(1, 6), ["0.0", "0.1", "0.2", "0.3", "0.4"]);
  const cell = figureSvg({
    title: "intervals",
    panels: [{
      title: "",
      xLabel: "",
      yLabel: "",
      axes: false,
      bands: [""],
      series: [
        { kind: "intervals", label: "c", color: "#222", intervals: [[1, 2, 3]] },
        { kind: "intervals", label: "s", color: "#00f", intervals: [[2, 3, 4]] },
      ],
    }],
    frame: { width: 180, height: 22, left: 6, right: 6, top: 0, bottom: 0 },
    legend: [],
    className: "intervals",
  });
  // No axes: the domain is the intervals' own 1…4 → x = 6 + 56·(v − 1); slots of 22/3.
  assert.match(cell, /^<svg xmlns="[^"]+" class="intervals" viewBox="0 0 180 22"/);
  assert.match(cell, /<line x1="6\.0" y1="7\.3" x2="118\.0" y2="7\.3" stroke="#222"/);
  assert.match(cell, /<circle cx="62\.0" cy="7\.3" r="3"/);
  assert.match(cell, /<line x1="62\.0" y1="14\.7" x2="174\.0" y2="14\.7" stroke="#00f"/);
  assert.deepEqual(texts(cell), []);
});

Deno.test("`figureSvg()` lays panels side by side with the legend and caption below", () => {
  const panel: Panel = {
    title: "<P>",
    xLabel: "x",
    yLabel: "y",
    series: [{ label: "s", color: "#000", points: [[0, 1], [1, 2]] }],
  };
  const svg = figureSvg({
    title: "a & b",
    panels: [panel, { ...panel, series: [] }],
    legend: [["one", "#f00"], ["two", "#0f0"], ["three", "#00f"], ["four", "#000"], [
      "five",
      "#777",
    ]],
    caption: "note",
  });
  // Two panels: width 720; 5 entries, 4 to a row: 2 rows; 266 + 32 + 18 = 316.
  assert.match(svg, /viewBox="0 0 720 316" width="720" height="316"/);
  assert.match(svg, /<title>a &amp; b<\/title>/);
  assert.match(svg, /<g transform="translate\(360,0\)">.*no data<\/text><\/g>/);
  assert.match(svg, /<line x1="550" y1="266" x2="572" y2="266" stroke="#000"/);
  assert.match(svg, /<line x1="10" y1="282" x2="32" y2="282" stroke="#777"/);
  assert.match(svg, /<text x="10" y="312">note<\/text>\n<\/svg>$/);
  assert.ok(svg.includes("&lt;P&gt;") && !svg.includes("<P>"));
});
