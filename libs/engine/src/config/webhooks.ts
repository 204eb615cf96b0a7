import { z } from "zod";
import type { OutboundUrlPolicy } from "@agent-server/core";
import { parseSigningSecret, WEBHOOK_SECRET_ENV } from "../webhooks/signing.js";

/** `dev` trusts the local network (a developer's receiver on localhost); `serve` does not. */
export type ServerMode = "dev" | "serve";

/**
 * langgraph.json `webhooks.url`, with the names and meaning of the Python server's `WebhookUrlPolicy`
 * (langgraph_cli/schemas.py). Strict: a misspelt key of a security setting must stop the start, not
 * be dropped.
 */
export const WebhookUrlPolicySchema = z.strictObject({
  /** Absolute URLs must be https. Default true when `webhooks.url` is given (as the Python CLI fills it), else false. */
  require_https: z.boolean().optional(),
  /** Exact hosts, or `*.example.com` for its subdomains (not the apex). Empty or absent: any host. */
  allowed_domains: z
    .array(
      z
        .string()
        .min(1)
        .refine((domain) => !domain.includes("*") || (domain.startsWith("*.") && !domain.slice(1).includes("*")), {
          message: "a wildcard can only be used as a prefix, in the form '*.domain'",
        }),
    )
    .optional(),
  /** Ports allowed (a URL without a port uses 443 for https, 80 for http). Empty or absent: any. */
  allowed_ports: z.array(z.number().int().min(1).max(65535)).optional(),
  /** Default 2048 when `webhooks.url` is given (the Python CLI's), else 4096 (the Python server's). */
  max_url_length: z.number().int().positive().optional(),
  /**
   * true: refuse paths on this server ("/hooks/done") and loopback hosts. false: allow both. Absent:
   * paths allowed; loopback hosts allowed in `dev`, refused in `serve`.
   */
  disable_loopback: z.boolean().optional(),
  /** true: refuse private networks (RFC 1918, CGNAT, fc00::/7). false: allow. Absent: allowed in `dev`, refused in `serve`. */
  disable_private_ips: z.boolean().optional(),
});

/**
 * langgraph.json `webhooks`. `url` is honoured (and applies to A2A push notification URLs too), as is
 * `signing_secret` (ours, not the Python server's); `headers`, `env_prefix` and `allowed_fields` are
 * accepted and reported at start as not supported.
 */
export const WebhooksConfigSchema = z.looseObject({
  url: WebhookUrlPolicySchema.optional(),
  /** Standard Webhooks signing secret (`whsec_<base64>` or a plain string); the environment's wins. */
  signing_secret: z.string().min(1).optional(),
  env_prefix: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  allowed_fields: z.array(z.string()).optional(),
});

export type WebhooksConfig = z.infer<typeof WebhooksConfigSchema>;

/**
 * The policy every user-given outbound URL (run webhooks, A2A push notifications) is checked against,
 * from `webhooks.url` and the server mode. Link-local, metadata, unspecified and reserved addresses
 * are refused whatever this says (core `checkOutboundUrl`).
 */
export function outboundUrlPolicy(webhooks: WebhooksConfig | undefined, mode: ServerMode): OutboundUrlPolicy {
  const url = webhooks?.url;
  const trustLocal = mode === "dev";
  return {
    requireHttps: url?.require_https ?? url !== undefined,
    allowedDomains: url?.allowed_domains ?? [],
    allowedPorts: url?.allowed_ports ?? [],
    maxUrlLength: url?.max_url_length ?? (url !== undefined ? 2048 : 4096),
    allowRelative: url?.disable_loopback !== true,
    allowLoopback: url?.disable_loopback === undefined ? trustLocal : !url.disable_loopback,
    allowPrivate: url?.disable_private_ips === undefined ? trustLocal : !url.disable_private_ips,
  };
}

/**
 * The key run webhooks and A2A push notifications are signed with, or undefined (not signed). The
 * environment wins over langgraph.json, so a deployment can keep the secret out of the project's files;
 * an empty variable counts as unset. A bad secret is an InvalidInputError naming where it came from.
 */
export function webhookSigningKey(webhooks: WebhooksConfig | undefined, env: NodeJS.ProcessEnv = process.env): Buffer | undefined {
  const fromEnv = env[WEBHOOK_SECRET_ENV];
  if (fromEnv) return parseSigningSecret(fromEnv, WEBHOOK_SECRET_ENV);
  if (webhooks?.signing_secret !== undefined) return parseSigningSecret(webhooks.signing_secret, "langgraph.json webhooks.signing_secret");
  return undefined;
}
