import assert from "node:assert/strict";
import { runCliInProcess } from "../cli/_helpers.ts";

const KEYS = new URL("../../src/cli/keys.ts", import.meta.url).pathname;

/** `deno task keys` on the store in `dir`, a real subprocess: its exit code, stdout and stderr. */
async function keys(dir: string, ...args: string[]) {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-env", "--allow-read", "--allow-write", KEYS, ...args],
    env: { PPSYNTH_DATA_DIR: dir },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: result.code, stdout: decode(result.stdout), stderr: decode(result.stderr) };
}

/**
 * {@linkcode keys}, the command's main run in this process (issue 36: a subprocess's start-up is
 * not what these calls check), PPSYNTH_DATA_DIR set to `dir` for it as for the subprocess.
 */
async function keysInProcess(dir: string, ...args: string[]) {
  const before = Deno.env.get("PPSYNTH_DATA_DIR");
  Deno.env.set("PPSYNTH_DATA_DIR", dir);
  try {
    return await runCliInProcess("keys.ts", args);
  } finally {
    if (before === undefined) Deno.env.delete("PPSYNTH_DATA_DIR");
    else Deno.env.set("PPSYNTH_DATA_DIR", before);
  }
}

Deno.test("`deno task keys` creates, lists and revokes keys, and refuses unknown scopes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_keys_" });
  try {
    const bad = await keys(dir, "create", "--scopes", "submit,root");
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /unknown scope "root"/);
    assert.equal((await keysInProcess(dir, "create")).code, 2);
    assert.equal((await keysInProcess(dir, "rotate")).code, 2);

    const created = await keys(dir, "create", "--scopes", "read,submit", "--name", "analyst");
    assert.equal(created.code, 0);
    const secret = created.stdout.trim();
    assert.match(secret, /^ppsk_/);
    const listed = await keys(dir, "list");
    const [id, name, tenant, scopes, , revokedAt] = listed.stdout.trim().split("\t");
    assert.deepEqual([name, tenant, scopes, revokedAt], ["analyst", "default", "read,submit", "-"]);
    const tenanted = await keysInProcess(dir, "create", "--scopes", "read", "--tenant", "agency-b");
    assert.equal(tenanted.code, 0);
    assert.match((await keysInProcess(dir, "list")).stdout, /\tagency-b\tread\t/);
    const badTenant = await keysInProcess(dir, "create", "--scopes", "read", "--tenant", "a b");
    assert.equal(badTenant.code, 2);
    assert.match(badTenant.stderr, /--tenant/);
    assert.ok(!listed.stdout.includes(secret), "list never shows a key");
    assert.equal((await keysInProcess(dir, "revoke", id)).code, 0);
    const relisted = (await keysInProcess(dir, "list")).stdout;
    assert.notEqual(relisted.trim().split("\n")[0].split("\t")[5], "-");
    assert.equal((await keysInProcess(dir, "revoke", id)).code, 2, "a key is revoked once");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a function file deploys alone: its default export serves it with /healthz", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_deploy_" });
  Deno.env.set("PPSYNTH_DATA_DIR", dir);
  try {
    const { default: deployed } = await import("../../functions/lipschitz.ts");
    const info = {} as Deno.ServeHandlerInfo<Deno.NetAddr>;
    const health = await deployed.fetch(new Request("http://localhost/healthz"), info);
    assert.equal(health.status, 200);
    const unauthorised = await deployed.fetch(
      new Request("http://localhost/v1/lipschitz", { method: "POST", body: "{}" }),
      info,
    );
    assert.equal(unauthorised.status, 401);
    assert.equal(unauthorised.headers.get("www-authenticate"), 'Bearer realm="ppsynth"');
    const elsewhere = await deployed.fetch(new Request("http://localhost/v1/syntheses/x"), info);
    assert.equal(elsewhere.status, 404, "only its own routes");
  } finally {
    Deno.env.delete("PPSYNTH_DATA_DIR");
    await Deno.remove(dir, { recursive: true });
  }
});
