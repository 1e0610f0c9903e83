import assert from "node:assert/strict";
import { runCliInProcess } from "./_helpers.ts";

async function fitCli(args: string[]): Promise<{ code: number; stderr: string }> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "src/cli/fit.ts", ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: result.code, stderr: new TextDecoder().decode(result.stderr) };
}

const BAD_INPUTS: [string, string, string[], RegExp][] = [
  ["missing column", "y,x\n1,2\n", ["--y=count"], /column "count": missing column/],
  ["non-numeric cell", "y\n1\nten\n", [], /row 2 \(line 3\), column "y": non-numeric cell/],
  ["NaN", "y\n1\nNaN\n", [], /row 2 \(line 3\), column "y": non-finite/],
  ["Inf", "y\n-Inf\n", [], /row 1 \(line 2\), column "y": non-finite/],
  ["negative count", "y\n1\n-3\n", [], /row 2 .*non-negative integer/],
  ["fractional count", "y\n1.5\n", [], /row 1 .*non-negative integer/],
  ["beta outside (0,1)", "y\n0.5\n1.2\n", ["--model=beta"], /row 2 .*inside \(0, 1\)/],
  ["empty file", "", [], /the file is empty/],
  ["header-only file", "y\n", [], /header but no data rows/],
  ["unknown model", "y\n1\n", ["--model=gamma"], /--model: /],
  ["zero chains", "y\n1\n", ["--chains=0"], /--chains: /],
  ["unknown flag", "y\n1\n", ["--colour=red"], /colour/],
];

/** The cases run in a real subprocess (its exit code and stderr); the others run in-process. */
const PROCESS_CASES = new Set(["non-numeric cell", "unknown flag"]);

for (const [label, csv, extra, pattern] of BAD_INPUTS) {
  Deno.test(`\`deno task fit\` exits non-zero, names the problem and writes nothing: ${label}`, async () => {
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(`${dir}/in.csv`, csv);
    const args = [`--data=${dir}/in.csv`, "--y=y", "--model=poisson", `--out=${dir}/out`];
    const overridden = args.filter((a) => !extra.some((e) => e.split("=")[0] === a.split("=")[0]));
    const command = [...overridden, ...extra];
    const { code, stderr } = PROCESS_CASES.has(label)
      ? await fitCli(command)
      : await runCliInProcess("fit.ts", command);
    assert.equal(code, 2, stderr);
    assert.match(stderr, pattern);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
    assert.ok(!stderr.includes("ten") || label !== "non-numeric cell", "the cell value leaked");
    await assert.rejects(Deno.stat(`${dir}/out`), Deno.errors.NotFound);
    await Deno.remove(dir, { recursive: true });
  });
}

Deno.test("`deno task fit` fits a small Poisson model and writes draws and fit.json", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/in.csv`, "y,z\n3,0.1\n5,1.2\n2,-0.3\n4,0.7\n6,1.1\n1,-1\n");
  const { code, stderr } = await fitCli([
    `--data=${dir}/in.csv`,
    "--y=y",
    "--x=z",
    "--model=poisson",
    "--chains=2",
    "--warmup=200",
    "--draws=100",
    "--seed=3",
    `--out=${dir}/out`,
  ]);
  assert.equal(code, 0, stderr);
  const fit = JSON.parse(await Deno.readTextFile(`${dir}/out/fit.json`));
  assert.equal(fit.n, 6);
  assert.ok(Number.isFinite(fit.summary.z.mean));
  const lines = (await Deno.readTextFile(`${dir}/out/draws.csv`)).trim().split("\n");
  assert.equal(lines.length, 1 + 2 * 100);
  assert.equal(lines[0], "intercept,z,sigma_beta_intercept,sigma_beta_z");
  await Deno.remove(dir, { recursive: true });
});
