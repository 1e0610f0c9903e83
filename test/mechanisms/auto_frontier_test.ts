import assert from "node:assert/strict";
import { AUTO_RULES } from "../../src/mechanisms/auto.ts";
import type { FrontierResult } from "../../src/studies/frontier.ts";
import { frontierCells, frontierWinners } from "../../src/studies/frontier_evidence.ts";

Deno.test("mechanism auto follows the committed frontier's verdict under each guarantee", async () => {
  const result = JSON.parse(
    await Deno.readTextFile(new URL("../../docs/studies/frontier.json", import.meta.url)),
  ) as FrontierResult;
  const winners = frontierWinners(frontierCells(result));
  assert.equal(AUTO_RULES.aDP, winners.anyWinner, JSON.stringify(winners.any));
  assert.equal(AUTO_RULES.DP, winners.dpWinner, JSON.stringify(winners.dp));
});
