/**
 * What the functions' routes that take a request body share: a keyed `POST` ({@linkcode
 * bodyRoute}), a job submission's answer ({@linkcode jobAccepted}), and the middleware that checks
 * the key's scope first, then reads the body (`jsonBody`: its depth limit, a large body parsed in
 * a worker), so an unauthorised request is refused before its body is read.
 *
 * @module
 */
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { jsonBody } from "../src/api/app.ts";
import { type ApiEnv, requireScope } from "../src/api/auth.ts";
import type { Scope } from "../src/jobs/store.ts";
import { Accepted } from "../src/api/job_view.ts";
import { BEARER_SECURITY, errorResponses } from "../src/api/schemas.ts";
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

/**
 * A keyed `POST` with the request (body, query) and answers given (`submitRoute` is the one
 * with an Idempotency-Key and a JSON body).
 *
 * @param path The route.
 * @param summary The OpenAPI summary.
 * @param request The request's body and parameters.
 * @param responses The answers.
 * @returns The route.
 */
export function bodyRoute<
  Q extends NonNullable<RouteConfig["request"]>,
  R extends RouteConfig["responses"],
>(path: string, summary: string, request: Q, responses: R) {
  return createRoute({
    method: "post",
    path,
    summary,
    security: BEARER_SECURITY,
    request,
    responses,
  });
}

/**
 * A job submission's answer: 202 with the persisted job (`Accepted`), and the errors a
 * submission can give (400, 401, 403, 404, 409, 413, 415, 422).
 *
 * @param description The 202 answer's description.
 * @returns The responses, to spread beside any others.
 */
export function jobAccepted(description: string) {
  return {
    202: { description, content: { "application/json": { schema: Accepted } } },
    ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422),
  };
}
