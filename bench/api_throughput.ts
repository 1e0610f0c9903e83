/**
 * API-job throughput on the multi-machine layout, on one machine: a private PostgreSQL cluster
 * (the store), a private redis-server (the queue), the API in this process (served on loopback,
 * as `deno task serve` with PPSYNTH_STORE_URL and PPSYNTH_QUEUE) and W `deno task worker`
 * processes (concurrency 1 each) sharing nothing but the two URLs. For each W it registers a
 * dataset, submits the jobs all at once over HTTP, and times from the first submission to the
 * last job's success; the workers' own log times give each job's run time on a worker, which
 * with W explains the throughput (W jobs at a time at best).
 *
 *     deno task bench:api [--workers 1,2] [--jobs 40] [--n 200] [--draws 200] [--warmup 200]
 *       [--chains 2] [--model normal] [--mechanism unweighted] [--epsilon 1e6] [--m 1]
 *       [--data FILE --y COL [--x A,B]]
 *
 * Without --data the dataset is n synthetic records (a continuous y and a public covariate z);
 * with it, the CSV file, its --x columns declared public.
 *
 * Needs initdb/postgres (PATH or /usr/lib/postgresql/VERSION/bin) and redis-server, as the
 * tests do. Prints one JSON line per W and a Markdown table.
 *
 * @module
 */
import { createApiKey } from "../src/api/auth.ts";
import { ApiConfig } from "../src/jobs/config.ts";
import { openRedisContext } from "../src/scale/redis_context.ts";
import { mainApp } from "../functions/main.ts";
import { confidentialCsv } from "../test/api/_helpers.ts";
import { startStack } from "../test/scale/_stack.ts";
import { benchArgs } from "./_common.ts";

const args = benchArgs({
  workers: "1,2",
  jobs: "40",
  n: "200",
  draws: "200",
  warmup: "200",
  chains: "2",
  model: "normal",
  mechanism: "unweighted",
  epsilon: "1e6",
  m: "1",
  data: "",
  y: "y",
  x: "z",
});

/** What one W measured. */
interface Measurement {
  readonly workers: number;
  readonly jobs: number;
  /** First submission to the last success, seconds. */
  readonly seconds: number;
  readonly jobsPerMinute: number;
  /** Median and 95th percentile of a submission's response time, ms. */
  readonly submitMedianMs: number;
  readonly submitP95Ms: number;
  /** Mean run time of a job on a worker (job_started to job_finished), seconds. */
  readonly meanRunSeconds: number;
  /** Jobs each worker released. */
  readonly perWorker: number[];
  /** Mean of the 1-minute load average over the run (other processes included). */
  readonly loadAverage: number;
}

function quantile(values: number[], q: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function measure(workers: number): Promise<Measurement> {
  const stack = await startStack(workers, { PPSYNTH_PROGRESS_INTERVAL_MS: "1000" });
  const context = await openRedisContext(
    // Jobs are counted as they finish, not at their release time to analysts.
    ApiConfig.parse({
      storeUrl: stack.env.PPSYNTH_STORE_URL,
      dataDir: "/nonexistent",
      releaseDelayMs: 0,
    }),
    stack.env.PPSYNTH_QUEUE,
    () => {},
  );
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    mainApp(context).fetch,
  );
  const loads: number[] = [Deno.loadavg()[0]];
  const sampler = setInterval(() => loads.push(Deno.loadavg()[0]), 1000);
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const key = (await createApiKey(context.store, ["submit", "read", "admin"], "bench")).secret;
    const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
    const jobs = Number(args.jobs);
    const x = args.x === "" ? [] : args.x.split(",");
    const csv = args.data === ""
      ? confidentialCsv(Number(args.n))
      : await Deno.readTextFile(args.data);
    const registered = await fetch(`${base}/v1/datasets`, {
      method: "POST",
      headers,
      body: JSON.stringify({ epsilonTotal: 1e12, csv, publicColumns: x }),
    });
    if (registered.status !== 201) throw new Error(`register: ${registered.status}`);
    const datasetId = (await registered.json()).id;
    const request = {
      datasetId,
      y: args.y,
      x,
      model: args.model,
      mechanism: args.mechanism,
      epsilon: Number(args.epsilon),
      m: Number(args.m),
      draws: Number(args.draws),
      warmup: Number(args.warmup),
      chains: Number(args.chains),
    };
    const started = performance.now();
    const latencies: number[] = [];
    const ids = await Promise.all(Array.from({ length: jobs }, async () => {
      const sent = performance.now();
      const response = await fetch(`${base}/v1/syntheses`, {
        method: "POST",
        headers,
        body: JSON.stringify(request),
      });
      latencies.push(performance.now() - sent);
      if (response.status !== 202) throw new Error(`submit: ${response.status}`);
      return (await response.json()).id as string;
    }));
    const pending = new Set(ids);
    while (pending.size > 0) {
      for (const id of [...pending]) {
        const job = await (await fetch(`${base}/v1/syntheses/${id}`, { headers })).json();
        if (job.status === "failed") throw new Error(`job failed: ${JSON.stringify(job.error)}`);
        if (job.status === "succeeded") pending.delete(id);
      }
      if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const runs: number[] = [];
    const perWorker = stack.workers.map((worker) => {
      const startedAt = new Map<unknown, number>();
      let released = 0;
      for (const line of worker.lines) {
        const time = Date.parse(String(line.time));
        if (line.event === "job_started") startedAt.set(line.job, time);
        if (line.event === "job_finished" && line.outcome === "released") {
          released++;
          runs.push((time - startedAt.get(line.job)!) / 1000);
        }
      }
      return released;
    });
    return {
      workers,
      jobs,
      seconds,
      jobsPerMinute: jobs / seconds * 60,
      submitMedianMs: quantile(latencies, 0.5),
      submitP95Ms: quantile(latencies, 0.95),
      meanRunSeconds: runs.reduce((a, b) => a + b, 0) / runs.length,
      perWorker,
      loadAverage: loads.reduce((a, b) => a + b, 0) / Math.max(1, loads.length),
    };
  } finally {
    clearInterval(sampler);
    await server.shutdown();
    await context.close();
    await stack.stop();
  }
}

const results: Measurement[] = [];
for (const workers of args.workers.split(",").map(Number)) {
  const result = await measure(workers);
  console.log(JSON.stringify(result));
  results.push(result);
}
const fixed = (x: number, digits: number) => x.toFixed(digits);
console.log(
  "\n| workers | jobs | wall (s) | jobs/min | mean run on a worker (s) | jobs per worker | " +
    "submit median / p95 (ms) | load average |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const r of results) {
  console.log(
    `| ${r.workers} | ${r.jobs} | ${fixed(r.seconds, 1)} | ${fixed(r.jobsPerMinute, 1)} | ` +
      `${fixed(r.meanRunSeconds, 2)} | ${r.perWorker.join(" + ")} | ` +
      `${fixed(r.submitMedianMs, 0)} / ${fixed(r.submitP95Ms, 0)} | ${fixed(r.loadAverage, 1)} |`,
  );
}
