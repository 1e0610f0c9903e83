/**
 * Polling for the tests that wait on subprocesses (servers, workers, Redis).
 *
 * @module
 */

/** Polls `probe` until it returns a value (not undefined; a throw counts as not yet) or `ms` pass. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 120_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch {
      // not ready yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
