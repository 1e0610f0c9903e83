import assert from "node:assert/strict";
import { writeFilesAtomically } from "../../src/data/mod.ts";

Deno.test("`writeFilesAtomically()` writes every file and leaves no temporary behind", async () => {
  const dir = await Deno.makeTempDir();
  await writeFilesAtomically(`${dir}/out`, new Map([["a.csv", "x\n1\n"], ["b.json", "{}"]]));
  const names = [...Deno.readDirSync(`${dir}/out`)].map((e) => e.name).sort();
  assert.deepEqual(names, ["a.csv", "b.json"]);
  assert.equal(await Deno.readTextFile(`${dir}/out/a.csv`), "x\n1\n");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("`writeFilesAtomically()` leaves nothing when a write fails", async () => {
  const dir = await Deno.makeTempDir();
  await assert.rejects(
    writeFilesAtomically(dir, new Map([["a.csv", "x"], ["missing/b.csv", "y"]])),
  );
  assert.deepEqual([...Deno.readDirSync(dir)], []);
  await Deno.remove(dir, { recursive: true });
});
