/**
 * The web report: `GET /` (a static page, no key needed to load it: it asks for a key and keeps
 * it in sessionStorage), its module `GET /web/report.js`, the report modules it draws its figures
 * with (`/web/report/*.ts`: the figure specs and the SVG renderer of report.html and the studies)
 * and the library it reads CSV with (d3, pinned in deno.json and served from this server, never
 * a CDN).
 * The page submits a synthesis through the API, follows the job, and draws the public report;
 * the confidential plots only for a key with the diagnostics scope.
 *
 * @module
 */
import page from "../web/index.html" with { type: "text" };
import script from "../web/report.js" with { type: "text" };
import { functionApp } from "../src/api/app.ts";
import { REPORT_MODULES } from "../src/api/browser_modules.ts";
import {
  assetHandler,
  assetUrl,
  contentSecurityPolicy,
  D3,
  pageHandler,
  scriptHandler,
} from "../src/api/assets.ts";
import type { ApiContext } from "../src/jobs/context.ts";
import { standalone } from "../src/api/standalone.ts";
import { health } from "./health.ts";

/** Only this server's scripts, and requests only to it; Plot's SVG carries inline styles. */
const CONTENT_SECURITY_POLICY = contentSecurityPolicy(
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
);

/** The web report function (its routes are not API operations, so not in the document). */
export function report(_context: ApiContext) {
  const app = functionApp();
  app.get("/", pageHandler(page, CONTENT_SECURITY_POLICY));
  app.get("/web/report.js", scriptHandler(script));
  for (const [path, module] of REPORT_MODULES) app.get(path, scriptHandler(module));
  app.get(assetUrl(D3), assetHandler(D3));
  return app;
}

/** `deno serve functions/report.ts`: the page alone (and /healthz); it needs the API's routes. */
export default standalone(import.meta, [health, report], { jobs: false });
