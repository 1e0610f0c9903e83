import assert from "node:assert/strict";
import {
  PASSING_DRAWS,
  readJson,
  runCliInProcess,
  runCliOk,
  SEEDED_DRAWS,
  synthRefusalTests,
  writeInput,
} from "./_helpers.ts";

/** The two outcomes of these tests: a count a (Poisson) and an amount b (normal), given x. */
const OUTCOMES = ["--y=a,b", "--x=x", "--model=poisson,normal"];

/** 80 records: a public x, a count a and an amount b that depends on a. */
function dataFile(dir: string): Promise<string> {
  return writeInput(dir, "x,a,b", 80, (i) => {
    const a = (i * 7) % 6;
    return `${(i % 10) / 10},${a},${(2 + 0.5 * a + ((i * 13) % 7) / 7).toFixed(3)}`;
  });
}

/**
 * Runs synth on {@linkcode dataFile} in `dir` with {@linkcode OUTCOMES}, `flags` and
 * {@linkcode PASSING_DRAWS}, writing `<dir>/out`, and asserts it exits 0.
 */
async function synthOutcomes(dir: string, flags: string[]): Promise<void> {
  const data = `--data=${await dataFile(dir)}`;
  await runCliOk("synth.ts", [data, ...OUTCOMES, ...flags, `--out=${dir}/out`, ...PASSING_DRAWS]);
}

Deno.test("`deno task synth --y a,b --model poisson,normal`: one joint guarantee, both outcomes", async () => {
  const dir = await Deno.makeTempDir();
  await synthOutcomes(dir, ["--mechanism=lw", "--epsilon=30", "--m=2", "--seed=4"]);
  const report = await readJson(`${dir}/out/report.json`);
  assert.equal(report.model, "joint");
  assert.deepEqual(report.outcomes, [{ y: "a", model: "poisson" }, { y: "b", model: "normal" }]);
  assert.deepEqual(report.columns, ["x", "a", "b"]);
  assert.ok(report.epsilon <= 30);
  assert.equal(report.epsilon, 2 * report.lipschitz * 2);
  const diagnostics = await readJson(`${dir}/out/diagnostics.json`);
  // Δ is the joint record's: the largest per-record bound, over both outcomes' log densities.
  assert.equal(Math.max(...diagnostics.recordLipschitz), report.lipschitz);
  assert.ok(diagnostics.fit.summary["a:intercept"] && diagnostics.fit.summary["b:a"]);
  assert.deepEqual(diagnostics.outcomes.map((o: { y: string }) => o.y), ["a", "b"]);
  assert.equal(diagnostics.outcomes[1].utility.length, 2);
  const lines = (await Deno.readTextFile(`${dir}/out/synthetic-1.csv`)).trim().split("\n");
  assert.equal(lines[0], "x,a,b");
  assert.equal(lines.length, 81);
  assert.ok(lines.slice(1).every((line) => Number.isInteger(Number(line.split(",")[1]))));
  await Deno.remove(dir, { recursive: true });
});

const BAD: [string, string[], RegExp][] = [
  ["a model count that differs", ["--model=poisson"], /--model: give one model per outcome/],
  ["an unknown model", ["--model=poisson,gamma"], /--model: /],
  ["a survey model", ["--model=poisson,fbs"], /--model: the survey model fbs takes one outcome/],
  ["CW", ["--mechanism=cw"], /--mechanism: cw needs one outcome/],
  ["the histogram", ["--mechanism=histogram"], /--mechanism: histogram needs one outcome/],
  ["a repeated outcome", ["--y=a,a"], /--y: the outcome a is repeated/],
  [
    "CW on a categorical outcome",
    ["--y=a", "--model=categorical", "--mechanism=cw-final"],
    /--mechanism: cw-final's ball .* needs a numeric outcome/,
  ],
  ["an outcome among x", ["--x=x,b"], /--x: the outcome cannot be a covariate/],
];

synthRefusalTests(
  "`deno task synth` with several outcomes exits 2, writes nothing",
  BAD,
  dataFile,
  [...OUTCOMES, "--mechanism=lw"],
  2,
);

/** {@linkcode dataFile} with an outcome missing in two records (b of record 3, a of record 7). */
async function missingFile(dir: string): Promise<string> {
  const data = await dataFile(dir);
  const lines = (await Deno.readTextFile(data)).trim().split("\n");
  lines[3] = lines[3].replace(/,[^,]*$/, ","); // record 3: b empty
  lines[7] = lines[7].replace(/^([^,]*),[^,]*,/, "$1,NA,"); // record 7: a is NA
  await Deno.writeTextFile(data, lines.join("\n") + "\n");
  return data;
}

/** The flags of the release two tests share: unweighted, m = 2, seed 2, a utility model. */
const UTILITY_RUN = ["--mechanism=unweighted", "--m=2", "--seed=2", "--utility-model=b ~ x + a"];

let shared: Promise<{ dir: string; stderr: string }> | undefined;

/**
 * One release for two tests (issue 36: one run, not two): synth on {@linkcode missingFile} with
 * `--missing drop` and {@linkcode UTILITY_RUN}, written to `<dir>/out`; its standard error. Its
 * folder is removed when the file's tests end.
 */
function sharedRelease(): Promise<{ dir: string; stderr: string }> {
  shared ??= (async () => {
    const dir = await Deno.makeTempDir();
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    const data = await missingFile(dir);
    const stderr = await runCliOk("synth.ts", [
      `--data=${data}`,
      ...OUTCOMES,
      ...UTILITY_RUN,
      "--missing=drop",
      `--out=${dir}/out`,
      ...SEEDED_DRAWS,
    ]);
    return { dir, stderr };
  })();
  return shared;
}

Deno.test("a missing outcome value: exit 2 naming file, row and column; `--missing drop` reports the count", async () => {
  const dir = await Deno.makeTempDir();
  const data = await missingFile(dir);
  const refused = await runCliInProcess("synth.ts", [
    `--data=${data}`,
    ...OUTCOMES,
    ...UTILITY_RUN,
    ...PASSING_DRAWS,
    `--out=${dir}/out`,
  ]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /in\.csv, row \d+ \(line \d+\), column "[ab]"/);
  await assert.rejects(Deno.stat(`${dir}/out`), Deno.errors.NotFound);
  await Deno.remove(dir, { recursive: true });
  const dropped = await sharedRelease();
  assert.match(dropped.stderr, /removed 2 record\(s\) with a missing value/);
  const report = await readJson(`${dropped.dir}/out/report.json`);
  assert.equal(report.n, 78);
  const diagnostics = await readJson(`${dropped.dir}/out/diagnostics.json`);
  assert.equal(diagnostics.missingDropped, 2);
});

Deno.test("several outcomes write the owner's utility report (JSON and self-contained HTML) and risk", async () => {
  const { dir } = await sharedRelease();
  const utility = await readJson(`${dir}/out/utility.json`);
  assert.equal(utility.m, 2);
  assert.deepEqual(utility.synthesized.map((v: { name: string }) => v.name), ["a", "b"]);
  assert.ok(utility.propensity.mean.pMSE >= 0);
  assert.equal(utility.models.length, 1);
  const html = await Deno.readTextFile(`${dir}/out/report.html`);
  assert.match(html, /<svg/);
  // The first section is the release, with report.json's ε and the fit's health.
  const manifest = await readJson(`${dir}/out/report.json`);
  assert.equal(/<section id="([^"]+)"/.exec(html)?.[1], "release");
  assert.match(html, /data-field="Mechanism"><th>Mechanism<\/th><td><strong>unweighted/);
  assert.match(html, /data-field="Synthetic datasets m"><th>[^<]*<\/th><td>2</);
  assert.match(html, new RegExp(`data-field="Records n"><th>[^<]*</th><td>${manifest.n}<`));
  assert.match(html, /data-field="Divergent transitions">/);
  assert.match(html, /data-field="Target ε"><th>[^<]*<\/th><td>none \(not calibrated/);
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href="http/);
  const diagnostics = await readJson(`${dir}/out/diagnostics.json`);
  assert.equal(diagnostics.riskReport.m, 2);
  // The public manifest carries none of it.
  const report = await Deno.readTextFile(`${dir}/out/report.json`);
  assert.doesNotMatch(report, /pMSE|expectedMatchRisk/);
});

Deno.test("the perturbed histogram of a categorical outcome has one bin per level and releases levels", async () => {
  const dir = await Deno.makeTempDir();
  const data = await writeInput(
    dir,
    "x,kind",
    90,
    (i) => `${i % 3},${["red", "green", "blue"][(i * 5) % 3]}`,
  );
  const histogram = ["--y=kind", "--x=x", "--model=categorical", "--mechanism=histogram"];
  await runCliOk("synth.ts", [
    `--data=${data}`,
    ...histogram,
    "--epsilon=50",
    "--seed=3",
    `--out=${dir}/out`,
  ]);
  const values = (await Deno.readTextFile(`${dir}/out/synthetic-1.csv`)).trim().split("\n")
    .slice(1).map((line) => line.split(",")[1]);
  assert.equal(values.length, 90);
  assert.ok(values.every((v) => ["red", "green", "blue"].includes(v)), values.join(" "));
  // ε = 50: the noisy shares stay near a third each.
  for (const level of ["red", "green", "blue"]) {
    assert.ok(values.filter((v) => v === level).length > 15, level);
  }
  await Deno.remove(dir, { recursive: true });
});
