/**
 * Browser files of pinned npm packages (d3 for the web report, Swagger UI for
 * `/docs`), served by this server at `/assets/PACKAGE/PATH` so that no page loads anything from
 * a CDN. The versions are the ones deno.json pins; Deno installs them in its npm cache with the
 * rest of the lockfile, and the files are read from there once, then kept in memory.
 *
 * @module
 */
import type { Handler } from "hono";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/** A file of an npm package to serve. */
export interface PackageAsset {
  /** The package's name, as deno.json's import map has it. */
  readonly name: string;
  /** The file's path inside the package. */
  readonly path: string;
  /** Its Content-Type. */
  readonly type: string;
  /**
   * `() => import(name)`, never called: a literal import puts the package in the module graph,
   * so that Deno installs it with the server's other packages (a static import would evaluate
   * it on the server).
   */
  readonly graph: () => Promise<unknown>;
}

const JAVASCRIPT = "text/javascript; charset=utf-8";

/** The asset `path` of package `name`, served as `type` (`graph`: see {@linkcode PackageAsset}). */
function packageAsset(
  name: string,
  path: string,
  type: string,
  graph: () => Promise<unknown>,
): PackageAsset {
  return { name, path, type, graph };
}

/** d3's browser build (the global `d3`: the web report reads CSV and formats numbers with it). */
export const D3 = packageAsset("d3", "dist/d3.min.js", JAVASCRIPT, () => import("d3"));

/** Swagger UI's stylesheet. */
export const SWAGGER_CSS = packageAsset(
  "swagger-ui-dist",
  "swagger-ui.css",
  "text/css; charset=utf-8",
  () => import("swagger-ui-dist"),
);

/** Swagger UI's browser bundle (the global `SwaggerUIBundle`). */
export const SWAGGER_BUNDLE = packageAsset(
  "swagger-ui-dist",
  "swagger-ui-bundle.js",
  JAVASCRIPT,
  () => import("swagger-ui-dist"),
);

/**
 * The URL path an asset is served at: `/assets/NAME/PATH`.
 *
 * @param asset The file.
 * @returns e.g. "/assets/d3/dist/d3.min.js".
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { assetUrl, D3 } from "./assets.ts";
 * assert.equal(assetUrl(D3), "/assets/d3/dist/d3.min.js");
 * ```
 */
export function assetUrl(asset: PackageAsset): string {
  return `/assets/${asset.name}/${asset.path}`;
}

/** The folder of an installed package: up from its entry point to its own package.json. */
async function packageRoot(name: string): Promise<string> {
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    throw new Error(`the npm package ${name} is not installed (run \`deno install\`)`);
  }
  for (let dir = dirname(entry);; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(await Deno.readTextFile(join(dir, "package.json")));
      if (manifest.name === name) return dir;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    if (dirname(dir) === dir) throw new Error(`no package.json of ${name} above ${entry}`);
  }
}

const cache = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

/**
 * Reads an asset from the installed package (once; later calls share the bytes).
 *
 * @param asset The file.
 * @returns Its bytes; rejects when the package is not installed.
 */
export function readAsset(asset: PackageAsset): Promise<Uint8Array<ArrayBuffer>> {
  const key = assetUrl(asset);
  let bytes = cache.get(key);
  if (bytes === undefined) {
    bytes = packageRoot(asset.name).then((root) => Deno.readFile(join(root, asset.path)));
    bytes.catch(() => cache.delete(key));
    cache.set(key, bytes);
  }
  return bytes;
}

/**
 * A handler serving an asset with its type (no key needed: these are public libraries).
 *
 * @param asset The file.
 * @returns The Hono handler.
 */
export function assetHandler(asset: PackageAsset): Handler {
  return async (c) => c.body(await readAsset(asset), 200, { "Content-Type": asset.type });
}

/**
 * A page's Content-Security-Policy: its own sources, then requests only to this server and no
 * plugins, base URL, form targets or framing.
 *
 * @param sources The page's `default-src`, `script-src`, `style-src`… directives.
 * @returns The header's value.
 */
export function contentSecurityPolicy(...sources: string[]): string {
  return [
    ...sources,
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * A handler serving an HTML page under a content security policy, sending no referrer.
 *
 * @param html The page.
 * @param contentSecurityPolicy Its `Content-Security-Policy` header.
 * @returns The Hono handler.
 */
export function pageHandler(html: string, contentSecurityPolicy: string): Handler {
  return (c) =>
    c.html(html, 200, {
      "Content-Security-Policy": contentSecurityPolicy,
      "Referrer-Policy": "no-referrer",
    });
}

/** A handler serving a page's script text as JavaScript. */
export function scriptHandler(script: string): Handler {
  return (c) => c.body(script, 200, { "Content-Type": JAVASCRIPT });
}
