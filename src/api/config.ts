/**
 * The service's settings, for the callers that import them beside the app: they live with the
 * store and the worker pool they configure (`src/jobs/config.ts`), where the Redis backend
 * (`src/scale/`) reads them too.
 *
 * @module
 */
export { ApiConfig, configFromEnv } from "../jobs/config.ts";
