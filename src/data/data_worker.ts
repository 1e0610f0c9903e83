/**
 * One request to a fresh module worker, both ends: {@linkcode askWorker} posts a message and
 * waits for the answer (terminating the worker once answered, failed or aborted);
 * {@linkcode answerWith} runs the worker's computation and posts its value, or the error it threw
 * (a `DataError` keeps its class, location and message; any other error its name and message,
 * which the caller may map back to its class). A long computation may post notes on the way
 * ({@linkcode postNote}), which the caller receives in order.
 *
 * The message travels with a stop flag (`worker_stop.ts`) that {@linkcode askWorker} sets before it
 * terminates the worker on an abort: `terminate()` alone does not end a worker inside a
 * synchronous loop (Deno 2.9), so a long computation reads the flag in its loops.
 *
 * @module
 */
import { DataError, dataErrorFrom, type DataErrorMessage, dataErrorMessage } from "./data_error.ts";
import { requestStop, type StopFlag, stopFlag } from "./worker_stop.ts";
import { endWorker } from "./worker_threads.ts";

/** What {@linkcode askWorker} posts: the message, and the flag it sets before terminating. */
export interface WorkerRequest<J> {
  readonly job: J;
  readonly stop: StopFlag;
}

/** What a worker of {@linkcode answerWith} posts back. */
export type WorkerAnswer<T> =
  | { readonly type: "value"; readonly value: T }
  | { readonly type: "note"; readonly note: string }
  | DataErrorMessage
  | { readonly type: "error"; readonly name: string; readonly message: string };

/** Options of {@linkcode askWorker} beyond its stop signal. */
export interface AskOptions {
  /** Receives the worker's notes ({@linkcode postNote}), in order. */
  readonly onNote?: (note: string) => void;
  /** The error to throw for the worker's error of this name (default: an `Error` of that name). */
  readonly restore?: (name: string, message: string) => Error | undefined;
}

/**
 * The built-in error classes a caller's `restore` commonly maps back: a `RangeError` (bad
 * settings) or `TypeError` of `name`, with `message`; undefined for any other name.
 *
 * @param name The worker's error's name.
 * @param message Its message.
 * @returns The error, or undefined.
 */
export function builtInError(name: string, message: string): Error | undefined {
  return name === "RangeError"
    ? new RangeError(message)
    : name === "TypeError"
    ? new TypeError(message)
    : undefined;
}

/**
 * Runs `message` in a fresh module worker at `url` and resolves with its value; rejects with the
 * `DataError` (same message) or the worker's error (its class where `options.restore` maps its
 * name, else an Error of its name and message), with `signal`'s reason when it is aborted first
 * (the request's stop flag is set and the worker terminated at once, so its work stops).
 *
 * @param url The worker module (one that answers with {@linkcode answerWith}).
 * @param message What it computes from (structured-cloned: prefer strings and typed arrays).
 * @param signal Stops the work.
 * @param options Where notes go and how errors are restored.
 * @returns The worker's value.
 */
export function askWorker<T>(
  url: URL,
  message: unknown,
  signal?: AbortSignal,
  options: AskOptions = {},
): Promise<T> {
  signal?.throwIfAborted();
  const worker = new Worker(url.href, { type: "module" });
  const stop = stopFlag();
  const abort = () => endWorker(worker);
  return new Promise<Exclude<WorkerAnswer<T>, { type: "note" }>>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<WorkerAnswer<T>>) => {
      if (event.data.type === "note") options.onNote?.(event.data.note);
      else resolve(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(`the worker failed: ${event.message}`));
    };
    signal?.addEventListener("abort", () => {
      // Set first: a worker inside a synchronous loop ends only when its loop reads it.
      requestStop(stop);
      abort();
      reject(signal.reason);
    }, { once: true });
    worker.postMessage({ job: message, stop } satisfies WorkerRequest<unknown>);
  }).then((answer) => {
    if (answer.type === "value") return answer.value;
    if (answer.type === "data_error") throw dataErrorFrom(answer);
    const restored = options.restore?.(answer.name, answer.message);
    if (restored !== undefined) throw restored;
    const error = new Error(answer.message);
    error.name = answer.name;
    throw error;
  }).finally(abort);
}

/**
 * The worker's side: posts `compute(job, stop)`'s value (its `transfer` buffers moved, not
 * copied), or the error it threw.
 *
 * @param request What {@linkcode askWorker} posted.
 * @param compute The work (synchronous or not) on the job, returning the value and the buffers to
 *   transfer; a long loop reads `stop` (`throwIfStopRequested`).
 */
export async function answerWith<J, T>(
  request: WorkerRequest<J>,
  compute: (job: J, stop: StopFlag) =>
    | { value: T; transfer?: Transferable[] }
    | Promise<{ value: T; transfer?: Transferable[] }>,
): Promise<void> {
  let answer: WorkerAnswer<T>;
  let transfer: Transferable[] = [];
  try {
    const result = await compute(request.job, request.stop);
    answer = { type: "value", value: result.value };
    transfer = result.transfer ?? [];
  } catch (error) {
    if (error instanceof DataError) {
      answer = dataErrorMessage(error);
    } else {
      const { name, message } = error instanceof Error ? error : new Error(String(error));
      answer = { type: "error", name, message };
    }
  }
  (self as unknown as WorkerScope).postMessage(answer, transfer);
}

/**
 * The worker's side: a note for the caller's `onNote` (a stage name; never a confidential value).
 *
 * @param note The note.
 */
export function postNote(note: string): void {
  (self as unknown as WorkerScope).postMessage(
    { type: "note", note } satisfies WorkerAnswer<never>,
    [],
  );
}

/** The one member of a worker's global scope that {@linkcode answerWith} uses. */
interface WorkerScope {
  postMessage(message: unknown, transfer: Transferable[]): void;
}
