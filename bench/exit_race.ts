/**
 * How often a process dies at exit when workers that used the GPU were ended just before
 * (docs/decisions.md, "An abort at exit after every test passed"): `--runs` processes per
 * variant — every WebGPU backend (Vulkan and GL) or Vulkan alone (`DENO_WEBGPU_BACKEND`), exiting
 * at once or after `workerTeardownsWaited` — counting exits by a signal and glibc heap messages.
 *
 *     deno run -A bench/exit_race.ts --runs 300
 *
 * @module
 */
import { benchArgs } from "./_common.ts";

const args = benchArgs({ runs: "300" });
const runs = Number(args.runs);
const child = new URL("./_exit_race_child.ts", import.meta.url).pathname;
const variants = [
  { backends: "all", wait: "no" },
  { backends: "vulkan", wait: "no" },
  { backends: "all", wait: "yes" },
  { backends: "vulkan", wait: "yes" },
];
console.log(
  `${Deno.build.target}, ${navigator.hardwareConcurrency} cores, ${new Date().toISOString()}`,
);
console.log("| backends | exit | runs | killed by a signal | heap messages | adapter |");
console.log("|---|---|---|---|---|---|");
for (const variant of variants) {
  const env: Record<string, string> = { LP_NUM_THREADS: "0" };
  if (variant.backends !== "all") env.DENO_WEBGPU_BACKEND = variant.backends;
  let signalled = 0;
  let heap = 0;
  let adapter = "";
  for (let run = 0; run < runs; run++) {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-check", child, variant.wait],
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (output.signal !== null) signalled++;
    if (/corrupted|free\(\)|malloc\(\)/.test(new TextDecoder().decode(output.stderr))) heap++;
    adapter ||= new TextDecoder().decode(output.stdout).trim().split(",")[0];
  }
  const exit = variant.wait === "yes" ? "after workerTeardownsWaited" : "at once";
  console.log(`| ${variant.backends} | ${exit} | ${runs} | ${signalled} | ${heap} | ${adapter} |`);
}
