import { z } from "zod";

/**
 * langgraph.json `mcp`: which assistants the `/mcp` endpoint offers as tools and how it keeps clients
 * (docs/mcp.md). `http.disable_mcp` (in the `http` block, as the official config names it) turns the
 * endpoint off. Strict: a misspelt key would otherwise silently expose every assistant.
 */

const AssistantRef = z.string().trim().min(1, "must not be empty");

export const McpConfigSchema = z.strictObject({
  /**
   * The assistants that are tools, in this order: assistant ids, or graph names (a graph's system
   * assistant). Absent: every assistant the caller may see.
   */
  assistants: z
    .array(AssistantRef)
    .min(1, "list at least one assistant id or graph name (to turn MCP off, set http.disable_mcp)")
    .superRefine((refs, ctx) => {
      const seen = new Set<string>();
      refs.forEach((ref, index) => {
        if (seen.has(ref)) ctx.addIssue({ code: "custom", path: [index], message: `"${ref}" is listed twice` });
        seen.add(ref);
      });
    })
    .optional(),
  /**
   * `stateless` (default): every HTTP request stands alone, so any process behind a load balancer can
   * answer it. `session`: the server keeps each client's session (Mcp-Session-Id) in memory, which
   * `notifications/cancelled` needs to reach a call in flight.
   */
  mode: z.enum(["stateless", "session"], { error: 'mode must be "stateless" or "session"' }).optional(),
  /**
   * How long one `tools/call` may take, in seconds (default 300; 0: no limit but the run's own). Past
   * it the call's run is cancelled and the call answers a tool error saying so.
   */
  call_timeout: z.number({ error: "call_timeout must be a number of seconds" }).min(0, "call_timeout must be 0 or more seconds").optional(),
});

export type McpConfig = z.infer<typeof McpConfigSchema>;
