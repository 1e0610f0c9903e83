/**
 * A stop request that a worker's synchronous loop sees. In Deno 2.9 `Worker.terminate()` stops a
 * worker only when its event loop next turns (denoland/deno PR 35657, open): a worker inside a
 * long synchronous loop — a chain's iterations — runs on to the loop's end, a core busy for as
 * long as the work was meant to take, after its job was stopped at its time limit and its reply
 * is no longer awaited. So the parent sets a flag in memory it shares with the worker before it
 * terminates it, and the loop reads the flag and throws, which ends the loop and hands the event
 * loop the termination.
 *
 * @module
 */

/** A stop flag: 0 while the work may go on, 1 once a stop is requested. */
export type StopFlag = Int32Array;

/** A fresh flag, in shared memory (it can be posted to workers, which then see its writes). */
export function stopFlag(): StopFlag {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
}

/** Asks every loop that reads `flag` to stop. */
export function requestStop(flag: StopFlag): void {
  Atomics.store(flag, 0, 1);
}

/** The error a loop throws when a stop was requested. */
class StopRequested extends Error {
  override name = "StopRequested";
  constructor() {
    super("the work was stopped");
  }
}

/** Throws {@linkcode StopRequested} when a stop was requested on `flag` (none: never). */
export function throwIfStopRequested(flag: StopFlag | undefined): void {
  if (flag !== undefined && Atomics.load(flag, 0) !== 0) throw new StopRequested();
}
