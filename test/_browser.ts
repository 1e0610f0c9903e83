/**
 * Shared pieces of the tests that drive Chromium: where it is, whether they run, and
 * playwright-core loaded so that it works under Deno.
 *
 * @module
 */
import fs from "node:fs";

/** The Chromium the browser tests drive. */
export const CHROMIUM = "/usr/bin/chromium";

const hasChromium = await Deno.stat(CHROMIUM).then(() => true, () => false);

/** Ignore the browser tests: no Chromium, outside CI (in CI they fail). */
export const IGNORE_BROWSER = !hasChromium && Deno.env.get("CI") !== "true";

/** Logs `<what> ignored: no Chromium …` when the browser tests are ignored. */
export function announceChromium(what: string): void {
  if (IGNORE_BROWSER) {
    console.log(`${what} ignored: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
  }
}

/**
 * playwright-core, loaded once `fs.existsSync` answers false where it cannot look: at load it
 * probes /proc/sys/fs/binfmt_misc/WSLInterop, which Deno's `existsSync` refuses with NotCapable
 * unless every permission is granted (Node answers false).
 */
export async function playwright(): Promise<typeof import("playwright-core")> {
  const existsSync = fs.existsSync;
  fs.existsSync = (path) => {
    try {
      return existsSync(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotCapable) return false;
      throw error;
    }
  };
  return await import("playwright-core");
}
