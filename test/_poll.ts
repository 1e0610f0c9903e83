/**
 * Polling for the tests that wait on subprocesses (servers, workers, Redis), and the free ports
 * they listen on.
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

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return port;
}

/** Waits (up to `ms`) until something accepts a TCP connection on 127.0.0.1:`port`. */
export function untilListening(what: string, port: number, ms?: number): Promise<boolean> {
  return until(what, async () => {
    const connection = await Deno.connect({ hostname: "127.0.0.1", port });
    connection.close();
    return true;
  }, ms);
}
