import { z } from "@hono/zod-openapi";
import { MAX_TTL_MINUTES } from "@agent-server/core";

/** A TTL in minutes, as the Python Agent Server takes it; fractions are accepted (`0.05` = 3 s). */
export const TtlMinutes = z
  .number({ error: "ttl must be a number of minutes" })
  .positive("ttl must be more than 0 minutes")
  .max(MAX_TTL_MINUTES, `ttl must be at most ${MAX_TTL_MINUTES} minutes (100 years)`);

/**
 * A thread's `ttl` on create and patch: `{ strategy?, ttl }` as the official API and SDK send it (the SDK
 * turns a bare number into `{ ttl, strategy: "delete" }`; a bare number is accepted here too).
 */
export const ThreadTtlBody = z
  .union([
    TtlMinutes.transform((ttl) => ({ ttl, strategy: undefined })),
    z.object({
      strategy: z.enum(["delete", "keep_latest"], { error: 'ttl.strategy must be "delete" or "keep_latest"' }).nullish(),
      ttl: TtlMinutes,
    }),
  ])
  .openapi({
    description:
      "Minutes after its last update when the thread is swept: `delete` removes it with its runs and checkpoints, `keep_latest` keeps it and its latest checkpoint (default: langgraph.json `checkpointer.ttl.strategy`, else delete).",
  });
