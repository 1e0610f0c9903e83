/**
 * `GET /openapi.json` (the OpenAPI 3 document generated from the routes' zod schemas; any valid
 * key) and `GET /docs` (Swagger UI: a static page with no data in it, which asks for a key once
 * per browser session and sends it with every request, the document's included). Swagger UI's
 * files come from this server (the `swagger-ui-dist` that deno.json pins), never from a CDN.
 *
 * @module
 */
import { swaggerUI } from "@hono/swagger-ui";
import type { OpenAPIHono } from "@hono/zod-openapi";
import config from "../../deno.json" with { type: "json" };
import { assetHandler, assetUrl, SWAGGER_BUNDLE, SWAGGER_CSS } from "./assets.ts";
import { type ApiEnv, requireScope } from "./auth.ts";
import type { ApiContext } from "./context.ts";

/** Adds the key kept in sessionStorage (asked for once) to every request of the explorer. */
const REQUEST_INTERCEPTOR = `(request) => {
  let key = sessionStorage.getItem("ppsynth-api-key");
  if (!key) {
    key = (window.prompt("API key (sent as Authorization: Bearer KEY)") || "").trim();
    if (key) sessionStorage.setItem("ppsynth-api-key", key);
  }
  if (key) request.headers.Authorization = "Bearer " + key;
  return request;
}`;

/**
 * Mounts the document and the explorer on the root app (after every function, so the document
 * lists them all).
 *
 * @param app The root app.
 * @param context For the key store.
 */
export function mountDocs(app: OpenAPIHono<ApiEnv>, context: ApiContext): void {
  app.use("/openapi.json", requireScope(context.store, null));
  app.doc("/openapi.json", {
    openapi: "3.0.3",
    info: {
      title: "ppsynth",
      version: config.version,
      description: "Formally private synthetic data with the Bayesian pseudo posterior mechanism",
    },
    security: [{ bearer: [] }],
  });
  for (const asset of [SWAGGER_CSS, SWAGGER_BUNDLE]) app.get(assetUrl(asset), assetHandler(asset));
  app.get(
    "/docs",
    swaggerUI({
      url: "/openapi.json",
      // The page loads BASE/swagger-ui-dist/swagger-ui.css and …/swagger-ui-bundle.js.
      baseUrl: "/assets",
      // No badge from the online validator: the page requests nothing from elsewhere.
      validatorUrl: "none",
      title: "ppsynth API",
      requestInterceptor: REQUEST_INTERCEPTOR,
    }),
  );
}
