/**
 * Issue 22, low: numbers that arrive as text were read with `Number()` (or `z.coerce.number()`),
 * which also reads `0x10` as 16, `0b1` as 1 and a blank as 0: `--epsilon 0x10` was charged as
 * ε = 16, `?epsilonTotal=0x10` registered a budget of 16, and `/datasets/0x1` served the first
 * synthetic dataset. Every such number must now be a plain decimal (`parseDecimal`); anything
 * else is a usage error (exit 2) or a 400 naming the flag or parameter. A JSON body's numbers
 * must be JSON numbers: the text "0x10" is refused there too.
 */
import assert from "node:assert/strict";
import { UsageError } from "../../src/cli/run_command.ts";
import { FitOptions } from "../../src/cli/fit.ts";
import { parseRealFileArgs } from "../../src/cli/real_file.ts";
import { parseStratumSizes } from "../../src/cli/stratum_sizes.ts";
import { parseStudyArgs } from "../../src/cli/study.ts";
import { parseSynthArgs } from "../../src/cli/synth.ts";
import { parseWorkerArgs } from "../../src/cli/worker.ts";
import { runCli } from "../cli/_helpers.ts";
import * as h from "./_helpers.ts";

const EXAMPLE = "examples/skewed_counts.csv";

Deno.test("strict numbers: `synth --epsilon 0x10` exits 2 naming the flag and writes nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_strict_" });
  try {
    for (const epsilon of ["0x10", "0b1", "0o20", " 16", "16 ", "1_6", "Infinity"]) {
      const { code, stderr } = await runCli("synth.ts", [
        `--data=${EXAMPLE}`,
        "--y=y",
        "--model=negbin",
        "--mechanism=lw",
        "--epsilon",
        epsilon,
        `--out=${dir}/out`,
        "--draws=40",
        "--chains=2",
        "--warmup=40",
      ]);
      assert.equal(code, 2, `--epsilon ${JSON.stringify(epsilon)}: ${stderr}`);
      assert.match(stderr, /--epsilon: /, stderr);
      await assert.rejects(Deno.stat(`${dir}/out`), Deno.errors.NotFound);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("strict numbers: `fit --chains 0x10` exits 2 naming the flag", async () => {
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "src/cli/fit.ts",
      `--data=${EXAMPLE}`,
      "--y=y",
      "--model=poisson",
      "--out=/nonexistent/out",
      "--chains=0x10",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(result.stderr);
  assert.equal(result.code, 2, stderr);
  assert.match(stderr, /--chains: /, stderr);
});

Deno.test("strict numbers: every command's numeric flag refuses hex, binary and blanks", () => {
  const usage = (run: () => unknown, flag: string) =>
    assert.throws(run, (error: unknown) => {
      assert.ok(error instanceof UsageError, `${flag}: ${error}`);
      assert.match(error.message, new RegExp(`--${flag}\\b`));
      return true;
    });
  const synth = ["--data=d.csv", "--y=y", "--model=negbin", "--mechanism=lw", "--out=o"];
  for (const [flag, value] of [["epsilon", "0x10"], ["m", "0b10"], ["seed", "0x1"]]) {
    usage(() => parseSynthArgs([...synth, `--${flag}=${value}`]), flag);
  }
  assert.equal(parseSynthArgs([...synth, "--epsilon=1e1"]).spec.epsilon, 10, "a decimal");
  usage(() => parseSynthArgs([...synth, "--stratum-sizes=a=0x10"]), "stratum-sizes");
  usage(() => parseStratumSizes("stratum-sizes", "a=10,b=0x10"), "stratum-sizes");
  assert.deepEqual(parseStratumSizes("stratum-sizes", "a=10, b=2.5e1"), { a: 10, " b": 25 });
  usage(() => parseStudyArgs(["five", "--replicates=0x10"]), "replicates");
  usage(() => parseStudyArgs(["five", "--workers= "]), "workers");
  usage(() => parseRealFileArgs(["--epsilons=1,0x10"]), "epsilons");
  usage(() => parseRealFileArgs(["--m=0b11"]), "m");
  usage(
    () =>
      parseWorkerArgs(["--queue=redis://127.0.0.1:6379", "--concurrency=0x10"], () => undefined),
    "concurrency",
  );
  const fit = { data: "d.csv", y: "y", model: "poisson", out: "o" };
  for (const flag of ["chains", "warmup", "draws", "seed", "threads"]) {
    const parsed = FitOptions.safeParse({ ...fit, [flag]: "0x10" });
    assert.ok(!parsed.success, `fit --${flag} 0x10 was read as ${JSON.stringify(parsed.data)}`);
    assert.deepEqual(parsed.error.issues.map((issue) => issue.path[0]), [flag]);
  }
  assert.equal(FitOptions.parse({ ...fit, draws: "1e3" }).draws, 1000, "a decimal");
});

Deno.test('strict numbers: ?epsilonTotal=0x10, datasets/0x1 and a JSON "0x10" are refused', async () => {
  const t = await h.testApp({ workers: 1 });
  await h.withTenant(t, async ({ owner, analyst }) => {
    const upload = (query: string) =>
      t.app.request(`/v1/datasets?${query}&publicColumns=z`, {
        method: "POST",
        headers: h.auth(owner, "text/csv"),
        body: h.confidentialCsv(40),
      });
    for (const epsilonTotal of ["0x10", "0b10000", "", "%2016", "Infinity"]) {
      const refused = await upload(`epsilonTotal=${epsilonTotal}`);
      const body = await refused.json();
      assert.ok(
        refused.status === 400 || refused.status === 422,
        `?epsilonTotal=${epsilonTotal} registered a budget of ${JSON.stringify(body)}`,
      );
      assert.equal(body.error.field, "epsilonTotal", JSON.stringify(body));
    }
    const accepted = await upload("epsilonTotal=1e1");
    const dataset = await accepted.json();
    assert.equal(accepted.status, 201, JSON.stringify(dataset));
    assert.equal(dataset.epsilonTotal, 10);

    // A JSON body's ε must be a JSON number; the text "0x10" is not read as 16.
    const text = await h.post(t, "/v1/syntheses", analyst, {
      ...h.QUICK,
      datasetId: dataset.id,
      epsilon: "0x10",
    });
    assert.equal(text.status, 400, await text.clone().text());
    assert.equal((await text.json()).error.field, "epsilon");
    const budget = await (await h.get(t, `/v1/datasets/${dataset.id}/budget`, analyst)).json();
    assert.equal(budget.spent, 0, "the refused request was not charged");

    // The k of /datasets/{k} is a plain decimal too (a histogram release: no sampler).
    const { id: bounded } = await h.register(t, owner, {
      epsilonTotal: 10,
      records: h.confidentialValues(40).map((y, i) => ({ y: Number(y), z: (i % 5) / 5 })),
      publicColumns: ["z"],
      bounds: { y: [0, 5] },
    });
    const submitted = await h.post(t, "/v1/syntheses", analyst, {
      ...h.HISTOGRAM_OF_Y,
      m: 1,
      datasetId: bounded,
    });
    assert.equal(submitted.status, 202, await submitted.clone().text());
    const job = await h.waitFor(t, (await submitted.json()).location, analyst);
    assert.equal(job.status, "succeeded", JSON.stringify(job.error));
    const [first] = job.datasets as string[];
    assert.equal((await h.get(t, first, analyst)).status, 200);
    for (const k of ["0x1", "0b1", "%201"]) {
      const response = await h.get(t, first.replace(/\/1$/, `/${k}`), analyst);
      const body = await response.text();
      assert.equal(response.status, 400, `datasets/${k} served ${body.slice(0, 80)}`);
      assert.equal(JSON.parse(body).error.field, "k");
    }
  });
});
