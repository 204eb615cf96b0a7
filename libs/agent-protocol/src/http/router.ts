import { OpenAPIHono } from "@hono/zod-openapi";
import { jsonDepthExceeds, MAX_JSON_DEPTH } from "@agent-server/core";
import type { AppEnv } from "../app-env.js";

/** The 422 detail for a request value nested beyond `MAX_JSON_DEPTH` (docs/limits.md). */
export const JSON_DEPTH_DETAIL = `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted`;

/**
 * How many validation issues a 422 lists, nested ones (the branches of a union) included. Zod reports one
 * issue per bad element, so without a bound a 2 KB array of 1,000 wrong items answered with hundreds of
 * KiB (found by the fuzz harness).
 */
export const MAX_REPORTED_ISSUES = 20;

type Issue = { [key: string]: unknown };

/**
 * The first `budget.left` issues, depth first: a union's `errors` (one issue list per branch) and a
 * key's or element's `issues` are bounded from the same budget. `truncated` is set when any were left out.
 */
function boundIssues(issues: readonly Issue[], budget: { left: number; truncated: boolean }): Issue[] {
  const kept: Issue[] = [];
  for (const issue of issues) {
    if (budget.left <= 0) {
      budget.truncated = true;
      break;
    }
    budget.left -= 1;
    const bounded: Issue = { ...issue };
    if (Array.isArray(issue.errors)) bounded.errors = (issue.errors as Issue[][]).map((branch) => boundIssues(branch, budget));
    if (Array.isArray(issue.issues)) bounded.issues = boundIssues(issue.issues as Issue[], budget);
    kept.push(bounded);
  }
  return kept;
}

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
        const budget = { left: MAX_REPORTED_ISSUES, truncated: false };
        const issues = boundIssues(result.error.issues as unknown as Issue[], budget);
        return c.json(
          { detail: `${field}: ${issue?.message ?? "invalid input"}`, issues, ...(budget.truncated && { issues_truncated: true }) },
          422,
        );
      }
      if (jsonDepthExceeds(result.data)) return c.json({ detail: JSON_DEPTH_DETAIL }, 422);
    },
  });
}
