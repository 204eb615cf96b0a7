import { z } from "zod";

/**
 * langgraph.json `a2a`: which assistant the domain-root card describes, what the agent cards say, which
 * security scheme they declare and where the authenticated extended card comes from (docs/a2a.md,
 * "Card configuration"). The sub-blocks are strict: a misspelt card field would otherwise vanish from
 * the card without a word.
 */

/** Cards are read by other agents and people: a relative or non-web URL in them is useless to both. */
const HttpUrl = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}, "must be an absolute http(s) URL");

const Text = z.string().min(1, "must not be empty");
/** Media types (`text/plain`, `application/json`, ...). */
const Modes = z.array(Text);

export const A2ASkillSchema = z.strictObject({
  id: Text,
  name: Text,
  description: Text,
  tags: z.array(Text).optional(),
  examples: z.array(Text).optional(),
  /** Absent: the card's default input modes. */
  input_modes: Modes.optional(),
  output_modes: Modes.optional(),
});

const Skills = z.array(A2ASkillSchema).superRefine((skills, ctx) => {
  const seen = new Set<string>();
  skills.forEach((skill, index) => {
    if (seen.has(skill.id)) ctx.addIssue({ code: "custom", path: [index, "id"], message: `duplicate skill id "${skill.id}"` });
    seen.add(skill.id);
  });
});

const Provider = z.strictObject({ organization: Text, url: HttpUrl });

/** Fields every agent's card shares unless its own entry says otherwise. */
export const A2ACardDefaultsSchema = z.strictObject({
  version: Text.optional(),
  provider: Provider.optional(),
  documentation_url: HttpUrl.optional(),
  icon_url: HttpUrl.optional(),
  default_input_modes: Modes.optional(),
  default_output_modes: Modes.optional(),
});

/**
 * One agent's card fields: an entry of `a2a.agents` (keyed by assistant id or graph id), and the shape
 * of an assistant's own `metadata.a2a`.
 */
export const A2AAgentCardSchema = A2ACardDefaultsSchema.extend({
  name: Text.optional(),
  description: Text.optional(),
  skills: Skills.optional(),
});

const Scopes = z.record(z.string(), z.string());
const OAuthFlows = z
  .strictObject({
    authorization_code: z
      .strictObject({
        authorization_url: HttpUrl,
        token_url: HttpUrl,
        refresh_url: HttpUrl.optional(),
        scopes: Scopes.optional(),
        pkce_required: z.boolean().optional(),
      })
      .optional(),
    client_credentials: z.strictObject({ token_url: HttpUrl, refresh_url: HttpUrl.optional(), scopes: Scopes.optional() }).optional(),
    device_code: z
      .strictObject({
        device_authorization_url: HttpUrl,
        token_url: HttpUrl,
        refresh_url: HttpUrl.optional(),
        scopes: Scopes.optional(),
      })
      .optional(),
  })
  // A2A v1.0 declares one flow per OAuth2 scheme (a proto oneof): more would be dropped from the card.
  .refine((flows) => Object.values(flows).filter((flow) => flow !== undefined).length === 1, {
    message: "give exactly one of authorization_code, client_credentials, device_code",
  });

/**
 * The scheme the server's auth handler (langgraph.json `auth.path`) expects, as the card declares it.
 * `scopes` (oauth2, openid) are the scopes a caller's token needs.
 */
export const A2ASecuritySchemeSchema = z.discriminatedUnion(
  "scheme",
  [
    z.strictObject({ scheme: z.literal("bearer"), bearer_format: Text.optional(), description: Text.optional() }),
    z.strictObject({ scheme: z.literal("basic"), description: Text.optional() }),
    z.strictObject({
      scheme: z.literal("api_key"),
      in: z.enum(["header", "query", "cookie"]).optional(),
      name: Text,
      description: Text.optional(),
    }),
    z.strictObject({
      scheme: z.literal("oauth2"),
      flows: OAuthFlows,
      metadata_url: HttpUrl.optional(),
      scopes: z.array(Text).optional(),
      description: Text.optional(),
    }),
    z.strictObject({
      scheme: z.literal("openid"),
      openid_connect_url: HttpUrl,
      scopes: z.array(Text).optional(),
      description: Text.optional(),
    }),
  ],
  {
    error: (issue) =>
      typeof issue.input === "object" && issue.input !== null
        ? 'scheme must be one of "bearer", "basic", "api_key", "oauth2", "openid"'
        : 'expected an object such as { "scheme": "bearer" }, or a list of them',
  },
);

export type A2ASecuritySchemeConfig = z.infer<typeof A2ASecuritySchemeSchema>;

const SchemeList = z
  .array(A2ASecuritySchemeSchema)
  .min(1)
  .superRefine((schemes, ctx) => {
    const seen = new Set<string>();
    schemes.forEach((entry, index) => {
      if (seen.has(entry.scheme))
        ctx.addIssue({ code: "custom", path: [index, "scheme"], message: `scheme "${entry.scheme}" given twice` });
      seen.add(entry.scheme);
    });
  });

/**
 * One scheme, or several a caller may choose from (each its own requirement), one of each kind. Parsed
 * by hand rather than with z.union: a union reports only "Invalid input", not the field that is wrong.
 */
const Security = z.unknown().transform((value, ctx): A2ASecuritySchemeConfig | A2ASecuritySchemeConfig[] => {
  const parsed = Array.isArray(value) ? SchemeList.safeParse(value) : A2ASecuritySchemeSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
  return z.NEVER;
});

/** `"./extended-card.json"` (a card merged over the public one) or `"./card.ts:extendCard"` (a function; no export name: default). */
const ExtendedCard = Text.refine((spec) => !/\.json:/.test(spec), "a .json file takes no export name");

export const A2AConfigSchema = z.looseObject({
  /** Which assistant the domain-root A2A agent card describes (defaults to the only graph). */
  default_assistant: z.string().optional(),
  /** Serve the A2A gRPC binding on this port (0 picks a free one; off when unset; `--grpc-port` overrides it). */
  grpc_port: z.number().int().min(0).max(65535).optional(),
  card: A2ACardDefaultsSchema.optional(),
  agents: z.record(z.string(), A2AAgentCardSchema).optional(),
  security: Security.optional(),
  extended_card: ExtendedCard.optional(),
});

export type A2AConfig = z.infer<typeof A2AConfigSchema>;
export type A2ACardDefaults = z.infer<typeof A2ACardDefaultsSchema>;
export type A2AAgentCardConfig = z.infer<typeof A2AAgentCardSchema>;
export type A2ASkillConfig = z.infer<typeof A2ASkillSchema>;
