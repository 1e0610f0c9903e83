/**
 * `GET /healthz`: 200 `{status: "ok"}` when the store answers, 503 otherwise. The one endpoint
 * that needs no key.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { functionApp } from "../src/api/app.ts";
import type { ApiContext } from "../src/jobs/context.ts";
import { standalone } from "../src/api/standalone.ts";

const Health = z.object({ status: z.enum(["ok", "unavailable"]) }).openapi("Health");

const route = createRoute({
  method: "get",
  path: "/healthz",
  summary: "Liveness and store check (no key needed)",
  responses: {
    200: { description: "Healthy", content: { "application/json": { schema: Health } } },
    503: {
      description: "The store does not answer",
      content: { "application/json": { schema: Health } },
    },
  },
});

/** The health function. */
export function health(context: ApiContext) {
  return functionApp().openapi(route, async (c) => {
    try {
      await context.store.ping();
      return c.json({ status: "ok" as const }, 200);
    } catch {
      return c.json({ status: "unavailable" as const }, 503);
    }
  });
}

/** `deno serve functions/health.ts`: the health check alone. */
export default standalone(import.meta, [health], { jobs: false });
