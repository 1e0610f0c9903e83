/**
 * The app factory: one Hono app made of function sub-apps, with the shared middleware (request
 * log, secure headers, request timeout, body limit), one error handler, and the OpenAPI
 * document and explorer. Tests build it on a temporary store; `functions/main.ts` mounts every
 * function; each function file also deploys alone.
 *
 * @module
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { routePath } from "hono/route";
import { secureHeaders } from "hono/secure-headers";
import { timeout } from "hono/timeout";
import type { ApiEnv } from "./auth.ts";
import type { ApiContext } from "./context.ts";
import { mountDocs } from "./docs.ts";
import { ApiError, errorHandler, notFound, validationHook } from "./errors.ts";
import type { Logger } from "./log.ts";

/** A function: builds its sub-app from the shared context. */
export type ApiFunction = (context: ApiContext) => OpenAPIHono<ApiEnv>;

/** A sub-app whose validation failures become 400 errors of the shared shape. */
export function functionApp(): OpenAPIHono<ApiEnv> {
  return new OpenAPIHono<ApiEnv>({ defaultHook: validationHook });
}

/** Logs method, route pattern (never the raw path or query), status and duration. */
function requestLog(log: Logger): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now();
    await next();
    const route = routePath(c, -1);
    log("request", {
      method: c.req.method,
      route: route === "*" || route === "/*" ? "(unmatched)" : route,
      status: c.res.status,
      ms: Math.round(performance.now() - start),
    });
  };
}

/** Responses may hold confidential results: no cache keeps them. */
const noStore: MiddlewareHandler = async (c, next) => {
  await next();
  c.header("Cache-Control", "no-store");
};

/**
 * Builds the app.
 *
 * @param context The store, settings, log and pool.
 * @param functions The functions to mount at the root.
 * @returns The app (`app.fetch` serves it; `app.request` tests it).
 */
export function createApp(
  context: ApiContext,
  functions: readonly ApiFunction[],
): OpenAPIHono<ApiEnv> {
  const { config, log } = context;
  const app = functionApp();
  app.use(
    "*",
    requestLog(log),
    secureHeaders(),
    noStore,
    timeout(
      config.requestTimeoutMs,
      () =>
        new ApiError(503, "timeout", "the request took too long; long work is submitted as a job"),
    ),
    bodyLimit({
      maxSize: config.maxBodyBytes,
      onError: () => {
        throw new ApiError(
          413,
          "payload_too_large",
          `the request body exceeds ${config.maxBodyBytes} bytes`,
        );
      },
    }),
  );
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "An API key from `deno task keys create`",
  });
  for (const build of functions) app.route("/", build(context));
  mountDocs(app, context);
  app.onError(errorHandler(log));
  app.notFound(notFound);
  return app;
}
