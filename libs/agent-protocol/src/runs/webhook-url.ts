import { InvalidInputError } from "@agent-server/core";
import type { Engine } from "@agent-server/engine";

/**
 * A run's or cron's webhook must pass the server's URL policy (langgraph.json `webhooks.url` and the
 * server mode; see docs/webhooks.md) before anything is written: refused -> 422 `{"detail"}`. Host
 * names are resolved only when the webhook is sent, where each resolved address is checked again.
 */
export function checkWebhookUrl(engine: Engine, webhook: string | null | undefined): void {
  if (!webhook) return;
  const refusal = engine.outbox.urlRefusal(webhook);
  if (refusal) throw new InvalidInputError(`webhook refused: ${refusal}`);
}
