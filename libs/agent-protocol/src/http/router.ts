import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.js";

/**
 * A router for one feature. Routes are declared with `createRoute` from `@hono/zod-openapi`, so the same
 * zod schemas validate requests and generate /openapi.json. Invalid input answers 422 with a `detail`
 * that names the field, as the official server does.
 */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const field = issue?.path.length ? issue.path.join(".") : "(body)";
        return c.json({ detail: `${field}: ${issue?.message ?? "invalid input"}`, issues: result.error.issues }, 422);
      }
    },
  });
}
