import assert from "node:assert/strict";
import { REPORT_FIELDS, runCli, SEEDED_DRAWS, synthRefusalTests } from "./_helpers.ts";

const EXAMPLE = new URL("../../examples/skewed_counts.csv", import.meta.url).pathname;

async function listing(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const entry of Deno.readDir(dir)) {
    files.set(entry.name, await Deno.readTextFile(`${dir}/${entry.name}`));
  }
  return files;
}

Deno.test("`deno task synth` writes the m datasets, the public report and the diagnostics", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    `${dir}/in.csv`,
    "y,z,secret\n" + Array.from({ length: 60 }, (_, i) => `${i % 7},${i / 10},${i}`).join("\n"),
  );
  const args = [
    `--data=${dir}/in.csv`,
    "--y=y",
    "--x=z",
    "--model=poisson",
    "--mechanism=lw",
    "--c=1",
    "--g=0.2",
    "--m=2",
    "--seed=5",
    ...SEEDED_DRAWS,
  ];
  const first = await runCli("synth.ts", [...args, `--out=${dir}/a`]);
  assert.equal(first.code, 0, first.stderr);
  const files = await listing(`${dir}/a`);
  assert.deepEqual([...files.keys()].sort(), [
    "diagnostics.json",
    "report.json",
    "synthetic-1.csv",
    "synthetic-2.csv",
  ]);
  const report = JSON.parse(files.get("report.json")!);
  assert.deepEqual(Object.keys(report).sort(), REPORT_FIELDS);
  assert.equal(report.epsilon, 2 * report.lipschitz * 2);
  assert.deepEqual(report.columns, ["y", "z"]);
  const synthetic = files.get("synthetic-1.csv")!.trim().split("\n");
  assert.equal(synthetic[0], "y,z");
  assert.equal(synthetic.length, 61);
  // The public z of every record, in the release's own order (issue 34: not the file's).
  const z = (line: string) => Number(line.split(",")[1]);
  assert.deepEqual(
    synthetic.slice(1).map(z).sort((a, b) => a - b),
    Array.from({ length: 60 }, (_, i) => i / 10),
  );
  const diagnostics = JSON.parse(files.get("diagnostics.json")!);
  assert.equal(diagnostics.alpha.length, 60);
  assert.equal(diagnostics.recordLipschitz.length, 60);
  assert.ok(diagnostics.fit.summary.intercept && diagnostics.fit.summary.z);
  assert.equal(diagnostics.utility.length, 2);
  assert.ok("expectedMatchRisk" in diagnostics.risk[0]);
  assert.equal(Math.max(...diagnostics.recordLipschitz), report.lipschitz);

  const second = await runCli("synth.ts", [...args, `--out=${dir}/b`]);
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(await listing(`${dir}/b`), files, "same seed, same bytes");
  await Deno.remove(dir, { recursive: true });
});

/** Refusals before any fit: the command's checks, run in-process. */
const BAD: [string, string[], RegExp][] = [
  ["ε ≤ 0", ["--epsilon=0"], /--epsilon: /],
  ["negative ε", ["--epsilon=-2"], /--epsilon: /],
  ["m < 1", ["--m=0"], /--m: /],
  ["unknown mechanism", ["--mechanism=magic"], /--mechanism: /],
  ["missing column", ["--y=count"], /column "count": missing column/],
  ["beta outside (0,1)", ["--model=beta"], /row 1 .*inside \(0, 1\)/],
  ["no --out", ["--out="], /--out: required/],
];

/**
 * Short fits (issue 36): the calibration's search, and censoring's check of ε after the unweighted
 * fit, end in the same refusal whatever the fits' length (neither reaches the final fit whose
 * diagnostics need the passing draws).
 */
const SHORT_FITS = ["--draws=50", "--chains=1", "--warmup=20"];

/** Refusals in a real subprocess: a flag's (exit 2) and two after fits (exit 3 and 2). */
const BAD_PROCESS: [string, string[], RegExp][] = [
  ["unknown model", ["--model=gamma"], /--model: /],
  [
    "ε unreachable",
    ["--mechanism=lw", "--epsilon=0.0001", ...SHORT_FITS],
    /target=0\.0001, reached=/,
  ],
  ["censoring without ε", ["--mechanism=censored", ...SHORT_FITS], /needs --epsilon/],
];

const TITLE = "`deno task synth` exits non-zero, names the problem, writes nothing";
const FLAGS = ["--y=y", "--model=negbin", "--mechanism=unweighted"];
synthRefusalTests(TITLE, BAD, () => EXAMPLE, FLAGS);
synthRefusalTests(TITLE, BAD_PROCESS, () => EXAMPLE, FLAGS, undefined, runCli);

Deno.test("a final fit that fails its diagnostics: exit 3 naming them, nothing written; --allow-flagged writes it, marked", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    `${dir}/in.csv`,
    "y,z\n" + Array.from({ length: 60 }, (_, i) => `${(i * 0.37) % 5},${i / 10}`).join("\n"),
  );
  // Too few draws for the final fit to pass its diagnostics.
  const fewDraws = ["--draws=40", "--chains=2", "--warmup=50"];
  const flags = ["--model=normal", "--mechanism=unweighted", "--seed=2", ...fewDraws, "--report"];
  const args = [`--data=${dir}/in.csv`, "--y=y", "--x=z", ...flags];
  const refused = await runCli("synth.ts", [...args, `--out=${dir}/refused`]);
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /final fit failed its diagnostics \(.*(R̂|bulk ESS).*\)/);
  assert.equal(await Deno.stat(`${dir}/refused`).then(() => true, () => false), false);

  const allowed = await runCli("synth.ts", [...args, "--allow-flagged", `--out=${dir}/allowed`]);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stderr, /--allow-flagged/);
  const files = await listing(`${dir}/allowed`);
  assert.equal(JSON.parse(files.get("report.json")!).fitFlagged, true);
  const html = files.get("report.html")!;
  assert.match(html, /id="warning"[^>]*><strong>Not a release/);
  // The warning above everything, then the release, whose fit row says flagged.
  assert.ok(html.indexOf('id="warning"') < html.indexOf('<section id="release">'));
  assert.match(
    html,
    /<section id="release">.*data-field="Final fit"><th>Final fit<\/th><td><strong class="bad">flagged/s,
  );
});
