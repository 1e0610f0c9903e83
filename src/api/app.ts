/**
 * The app factory: one Hono app made of function sub-apps, with the shared middleware (request
 * log, secure headers, request deadline, body limit), one error handler, and the OpenAPI
 * document and explorer; and the middleware of the routes that take JSON data (`jsonBody`).
 * Nothing heavy runs on the event loop: a large JSON body is read in a worker, after the key
 * is checked, and a request answered 503 at its deadline has written nothing and never will
 * (`commitRequest`). Tests build it on a temporary store; `functions/main.ts` mounts every
 * function; each function file also deploys alone.
 *
 * @module
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { routePath } from "hono/route";
import { secureHeaders } from "hono/secure-headers";
import { askWorker } from "../data/data_worker.ts";
import { type ApiEnv, requireScope } from "./auth.ts";
import type { ApiConfig } from "../jobs/config.ts";
import type { Scope } from "../jobs/store.ts";
import type { ApiContext } from "../jobs/context.ts";
import { mountDocs } from "./docs.ts";
import { ApiError, errorHandler, notFound, validationHook } from "./errors.ts";
import {
  exceedsDepth,
  type PreparedBody,
  tooDeepMessage,
  WORKER_JSON_LENGTH,
} from "./json_body.ts";
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

/** A request's deadline: its signal (aborted with the 503 when it passes) and its commit. */
interface Deadline {
  readonly signal: AbortSignal;
  /** Throws the 503 when the deadline has passed; afterwards it never passes. */
  commit(): void;
}

const deadlines = new WeakMap<Context, Deadline>();

/**
 * Answers 503 `timeout` once a request has run `ms` milliseconds, unless it committed first
 * ({@linkcode commitRequest}); its signal ({@linkcode requestSignal}) is aborted then, which
 * terminates the workers reading its data.
 */
function deadline(ms: number): MiddlewareHandler {
  return async (c, next) => {
    const controller = new AbortController();
    let committed = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (committed) return;
        const error = new ApiError(
          503,
          "timeout",
          "the request took too long; long work is submitted as a job",
        );
        controller.abort(error);
        reject(error);
      }, ms);
    });
    deadlines.set(c, {
      signal: controller.signal,
      commit() {
        controller.signal.throwIfAborted();
        committed = true;
      },
    });
    try {
      await Promise.race([next(), expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The request's deadline signal: aborted (its reason the 503) when the request timed out. */
export function requestSignal(c: Context): AbortSignal | undefined {
  return deadlines.get(c)?.signal;
}

/**
 * Call right before a request's first lasting write (a job, a charge, a stored table or
 * dataset): throws the 503 when the request already timed out, so that no write follows a 503;
 * afterwards the request is answered whatever time the writes take.
 *
 * @param c The request's context.
 */
export function commitRequest(c: Context): void {
  deadlines.get(c)?.commit();
}

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * The middleware of a route that takes data in a JSON body, after its key check: a body nesting
 * deeper than `PPSYNTH_MAX_JSON_DEPTH` is refused 400 before it is parsed; a body longer than
 * {@linkcode WORKER_JSON_LENGTH} is parsed in a worker (`json_worker.ts`), which also reads its
 * `records` into the canonical `csv` the request then carries, so that the event loop parses
 * and validates one string instead of a million small values.
 *
 * @param config The depth limit.
 * @param source A name for the records' data errors ("inline data").
 */
export function jsonBody(
  config: Pick<ApiConfig, "maxJsonDepth">,
  source: string,
): MiddlewareHandler {
  const { maxJsonDepth } = config;
  return async (c, next) => {
    const type = c.req.header("content-type")?.split(";")[0].trim() ?? "";
    if (JSON_MEDIA_TYPE.test(type)) {
      const text = await c.req.text();
      if (text.length <= WORKER_JSON_LENGTH) {
        if (exceedsDepth(text, maxJsonDepth)) {
          throw new ApiError(400, "invalid_request", tooDeepMessage(maxJsonDepth));
        }
      } else {
        const read = await askWorker<PreparedBody>(
          new URL("./json_worker.ts", import.meta.url),
          { text, maxDepth: maxJsonDepth, source },
          requestSignal(c),
        );
        if (read.type === "refused") throw new ApiError(400, read.code, read.message, read.field);
        // The body the validator parses: Hono's cache holds a body's promise by kind.
        const cache = c.req.bodyCache as Record<string, Promise<string>>;
        if (read.text !== null) cache.text = Promise.resolve(read.text);
      }
    }
    await next();
  };
}

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
    deadline(config.requestTimeoutMs),
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
