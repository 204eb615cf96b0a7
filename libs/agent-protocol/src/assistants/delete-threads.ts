import type { Context } from "hono";
import { matchesAuthFilter } from "@agent-server/core";
import type { AppEnv } from "../app-env.js";

const PAGE = 100;

/**
 * `DELETE /assistants/{id}?delete_threads=true`: deletes the threads whose `metadata.assistant_id` is the
 * assistant (as the SDK documents). Each deletion is authorized as `threads:delete`; threads outside the
 * caller's scope are left alone rather than failing the whole request.
 */
export async function deleteAssistantThreads(c: Context<AppEnv>, assistantId: string): Promise<number> {
  const { storage } = c.var.deps;
  let skipped = 0;
  let deleted = 0;
  while (true) {
    const page = await storage.threads.search({ metadata: { assistant_id: assistantId }, limit: PAGE, offset: skipped });
    if (page.length === 0) return deleted;
    for (const thread of page) {
      const filter = await c.var.auth.authorize("threads", "delete", { thread_id: thread.thread_id });
      if (!matchesAuthFilter(thread.metadata, filter)) {
        skipped++;
        continue;
      }
      if (await storage.threads.delete(thread.thread_id)) {
        deleted++;
        await c.var.deps.engine.threadEvents.delete(thread.thread_id);
      } else skipped++;
    }
  }
}
