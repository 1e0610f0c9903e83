import assert from "node:assert/strict";

const DEVICE = new URL("../../src/gpu/device.ts", import.meta.url).href;

Deno.test("asking for an adapter prints no Mesa runtime-directory complaint", async () => {
  const env = Deno.env.toObject();
  delete env.XDG_RUNTIME_DIR;
  const script = `import { acquireGpu } from "${DEVICE}";\n` +
    `console.log((await acquireGpu()) === null ? "none" : "adapter");`;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", script],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  assert.ok(!stderr.includes("XDG_RUNTIME_DIR"), stderr);
  console.log(`adapter request: ${new TextDecoder().decode(output.stdout).trim()}`);
});
