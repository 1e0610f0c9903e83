/**
 * `GET /openapi.json` (the OpenAPI 3 document generated from the routes' zod schemas; any valid
 * key) and `GET /docs` (Swagger UI: a static page with no data in it, which asks for a key once
 * per browser session and sends it with every request, the document's included). Swagger UI's
 * files come from this server (the `swagger-ui-dist` that deno.json pins), never from a CDN, and
 * the page runs no inline script (its start-up script is `GET /docs/init.js`), so its
 * Content-Security-Policy allows scripts and styles from this server only.
 *
 * @module
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import config from "../../deno.json" with { type: "json" };
import {
  assetHandler,
  assetUrl,
  contentSecurityPolicy,
  pageHandler,
  scriptHandler,
  SWAGGER_BUNDLE,
  SWAGGER_CSS,
} from "./assets.ts";
import { type ApiEnv, requireScope } from "./auth.ts";
import type { ApiContext } from "../jobs/context.ts";

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

/** Starts Swagger UI on the page's `#swagger-ui` (served as `/docs/init.js`: no inline script). */
export const DOCS_SCRIPT = `"use strict";
window.addEventListener("load", () => {
  window.ui = SwaggerUIBundle({
    dom_id: "#swagger-ui",
    url: "/openapi.json",
    // No badge from the online validator: the page requests nothing from elsewhere.
    validatorUrl: "none",
    requestInterceptor: ${REQUEST_INTERCEPTOR},
  });
});
`;

/** The explorer's page: Swagger UI's stylesheet and bundle, then the start-up script. */
const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="SwaggerUI">
<title>ppsynth API</title>
<link rel="stylesheet" href="${assetUrl(SWAGGER_CSS)}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${assetUrl(SWAGGER_BUNDLE)}"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/**
 * Scripts, styles and fonts from this server only, requests only to it (the document and the
 * API), and the inline SVG icons of Swagger UI's stylesheet (data: images). No inline script or
 * style element, no eval: Swagger UI sets its few inline styles through the DOM, which a
 * Content-Security-Policy does not restrict.
 */
export const DOCS_CONTENT_SECURITY_POLICY = contentSecurityPolicy(
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
);

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
  app.get("/docs", pageHandler(DOCS_PAGE, DOCS_CONTENT_SECURITY_POLICY));
  app.get("/docs/init.js", scriptHandler(DOCS_SCRIPT));
}
