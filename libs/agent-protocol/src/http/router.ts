import { OpenAPIHono } from "@hono/zod-openapi";
import { jsonDepthExceeds, MAX_JSON_DEPTH } from "@agent-server/core";
import type { AppEnv } from "../app-env.js";

/** The 422 detail for a request value nested beyond `MAX_JSON_DEPTH` (docs/limits.md). */
export const JSON_DEPTH_DETAIL = `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted`;

/**
 * How many validation issues a 422 lists. Zod reports one issue per bad element, so without a bound a
 * 2 KB array of 1,000 wrong items answers with hundreds of KiB (found by the fuzz harness).
 */
export const MAX_REPORTED_ISSUES = 20;

/**
 * A router for one feature. Routes are declared with `createRoute` from `@hono/zod-openapi`, so the same
 * zod schemas validate requests and generate /openapi.json. Invalid input answers 422 with a `detail`
 * that names the field, as the official server does.
 *
 * Every validated request value (JSON bodies, and query values parsed as JSON such as `metadata`) also
 * passes the depth limit here, the one place all of them go through: the schemas take payloads as
 * `unknown`, so deep nesting would only be met later, by recursive code, as a stack overflow.
 */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const field = issue?.path.length ? issue.path.join(".") : "(body)";
        const { issues } = result.error;
        const reported = issues.slice(0, MAX_REPORTED_ISSUES);
        const omitted = issues.length - reported.length;
        return c.json(
          { detail: `${field}: ${issue?.message ?? "invalid input"}`, issues: reported, ...(omitted > 0 && { issues_omitted: omitted }) },
          422,
        );
      }
      if (jsonDepthExceeds(result.data)) return c.json({ detail: JSON_DEPTH_DETAIL }, 422);
    },
  });
}
