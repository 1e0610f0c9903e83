/**
 * API keys: 256-bit random secrets sent as `Authorization: Bearer KEY`, stored only as their
 * SHA-256 hash (a key has full entropy, so a fast hash is enough: there is nothing to guess),
 * each with scopes (submit, read, diagnostics, admin). Scopes are independent: admin does not
 * imply the others.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { type ApiKey, DEFAULT_TENANT, type JobStore, type Scope, SCOPES } from "../jobs/store.ts";
import { ApiError } from "./errors.ts";

/** What a request carries once authenticated. */
export interface ApiEnv {
  Variables: { apiKey: ApiKey };
}

/** Every key starts with this (so a leaked key is easy to recognise and scan for). */
export const KEY_PREFIX = "ppsk_";

const KEY_PATTERN = /^ppsk_[A-Za-z0-9_-]{43}$/;

const TENANT_PATTERN = /^[A-Za-z0-9._-]{1,100}$/;

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

/**
 * SHA-256 of a text, in hex: what the store keeps of a key, and how an idempotent retry is told
 * apart from a different request.
 *
 * @param text The key or the request.
 * @returns 64 hex digits.
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Parses a comma-separated scope list.
 *
 * @param list e.g. "submit,read".
 * @returns The scopes, without repeats; throws a RangeError naming an unknown one.
 */
export function parseScopes(list: string): Scope[] {
  const scopes = [...new Set(list.split(",").map((s) => s.trim()).filter((s) => s !== ""))];
  if (scopes.length === 0) throw new RangeError("Invalid scopes: at least one is required");
  for (const scope of scopes) {
    if (!(SCOPES as readonly string[]).includes(scope)) {
      throw new RangeError(
        `Invalid scopes: unknown scope "${scope}" (known: ${SCOPES.join(", ")})`,
      );
    }
  }
  return scopes as Scope[];
}

/**
 * Creates a key with the given scopes in a tenant and stores its hash.
 *
 * @param store Where the hash goes.
 * @param scopes What the key may do.
 * @param name A label for the key's owner.
 * @param tenant The tenant whose datasets and jobs the key sees (and owns what it creates).
 * @returns The stored key record and the secret (shown once, never stored).
 */
export async function createApiKey(
  store: JobStore,
  scopes: readonly Scope[],
  name: string,
  tenant: string = DEFAULT_TENANT,
): Promise<{ key: ApiKey; secret: string }> {
  if (!TENANT_PATTERN.test(tenant)) {
    throw new RangeError("Invalid tenant: 1–100 letters, digits, '.', '_' or '-'");
  }
  const secret = KEY_PREFIX + base64url(crypto.getRandomValues(new Uint8Array(32)));
  const key: ApiKey = {
    id: crypto.randomUUID(),
    name,
    tenant,
    scopes: [...scopes],
    createdAt: new Date().toISOString(),
    revokedAt: null,
  };
  await store.createKey(key, await sha256Hex(secret));
  return { key, secret };
}

/**
 * Middleware requiring a valid key (401 otherwise) that holds `scope` (403 otherwise); null
 * accepts any valid key. The key record is put in `c.var.apiKey`.
 *
 * @param store Where keys are looked up.
 * @param scope The scope required.
 * @returns The middleware.
 */
export function requireScope(store: JobStore, scope: Scope | null): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
    if (match === null) {
      throw new ApiError(401, "unauthorized", "an API key is required: Authorization: Bearer KEY");
    }
    const secret = match[1];
    const key = KEY_PATTERN.test(secret) ? await store.findKey(await sha256Hex(secret)) : null;
    if (key === null) throw new ApiError(401, "unauthorized", "the API key is not valid");
    if (scope !== null && !key.scopes.includes(scope)) {
      throw new ApiError(403, "forbidden", `the API key lacks the "${scope}" scope`);
    }
    c.set("apiKey", key);
    await next();
  };
}
