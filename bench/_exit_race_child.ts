/**
 * One run for `exit_race.ts`: three workers take the GPU, are ended (`endWorker`), and the
 * process exits at once (`--wait no`) or after `workerTeardownsWaited` (`--wait yes`), as a
 * command does (`runCommand`). Prints what the workers answered.
 *
 * @module
 */
import { endWorker, workerTeardownsWaited } from "../src/data/worker_threads.ts";

const url = new URL("./_exit_race_worker.ts", import.meta.url);
const workers = Array.from({ length: 3 }, () => new Worker(url.href, { type: "module" }));
const answers = await Promise.all(workers.map((worker) =>
  new Promise<string>((resolve) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.postMessage(null);
  })
));
workers.forEach(endWorker);
if (Deno.args[0] === "yes") await workerTeardownsWaited();
console.log(answers.join(","));
