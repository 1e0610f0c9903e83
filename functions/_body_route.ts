/**
 * What the functions' routes that take a request body share: the key's scope is checked first,
 * then the body is read (`jsonBody`: its depth limit, a large body parsed in a worker), so an
 * unauthorised request is refused before its body is read.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { jsonBody } from "../src/api/app.ts";
import { type ApiEnv, requireScope } from "../src/api/auth.ts";
import type { Scope } from "../src/jobs/store.ts";
import type { ApiContext } from "../src/jobs/context.ts";

/**
 * The middleware of a route with a body: `requireScope`, then `jsonBody`.
 *
 * @param context The store (keys) and settings (the depth limit).
 * @param scope The scope required (null: any key).
 * @param source A name for the records' data errors ("inline data").
 * @returns The route's `middleware`.
 */
export function bodyMiddleware(
  context: Pick<ApiContext, "store" | "config">,
  scope: Scope | null,
  source: string,
): [MiddlewareHandler<ApiEnv>, MiddlewareHandler] {
  return [requireScope(context.store, scope), jsonBody(context.config, source)];
}
