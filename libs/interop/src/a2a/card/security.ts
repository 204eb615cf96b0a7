import type { OAuthFlows, SecurityRequirement, SecurityScheme } from "@a2a-js/sdk";
import type { A2ASecuritySchemeConfig } from "@agent-server/engine";
import type { A2ACardConfig } from "./options.js";

export interface CardSecurity {
  securitySchemes: Record<string, SecurityScheme>;
  securityRequirements: SecurityRequirement[];
}

/** With auth and no `a2a.security`: the usual credential of an `authenticate` handler, a bearer token. */
const DEFAULT_SCHEME: A2ASecuritySchemeConfig = { scheme: "bearer" };

/**
 * What the card says about authentication. Without custom auth the server takes every caller, so it
 * declares nothing. With it, `a2a.security` (one scheme, or several a caller may choose from: one
 * requirement each), else HTTP bearer. Scheme names in the card are the setting's `scheme`.
 */
export function cardSecurity(security: A2ACardConfig["security"], authConfigured: boolean): CardSecurity {
  if (!authConfigured) return { securitySchemes: {}, securityRequirements: [] };
  const entries = security === undefined ? [DEFAULT_SCHEME] : Array.isArray(security) ? security : [security];
  const securitySchemes: Record<string, SecurityScheme> = {};
  const securityRequirements: SecurityRequirement[] = [];
  for (const entry of entries) {
    securitySchemes[entry.scheme] = securityScheme(entry);
    const scopes = entry.scheme === "oauth2" || entry.scheme === "openid" ? (entry.scopes ?? []) : [];
    securityRequirements.push({ schemes: { [entry.scheme]: { list: [...scopes] } } });
  }
  return { securitySchemes, securityRequirements };
}

function securityScheme(entry: A2ASecuritySchemeConfig): SecurityScheme {
  const description = entry.description ?? "";
  switch (entry.scheme) {
    case "bearer":
      return {
        scheme: { $case: "httpAuthSecurityScheme", value: { description, scheme: "Bearer", bearerFormat: entry.bearer_format ?? "" } },
      };
    case "basic":
      return { scheme: { $case: "httpAuthSecurityScheme", value: { description, scheme: "Basic", bearerFormat: "" } } };
    case "api_key":
      return { scheme: { $case: "apiKeySecurityScheme", value: { description, location: entry.in ?? "header", name: entry.name } } };
    case "oauth2":
      return {
        scheme: {
          $case: "oauth2SecurityScheme",
          value: { description, flows: oauthFlows(entry.flows), oauth2MetadataUrl: entry.metadata_url ?? "" },
        },
      };
    case "openid":
      return { scheme: { $case: "openIdConnectSecurityScheme", value: { description, openIdConnectUrl: entry.openid_connect_url } } };
  }
}

function oauthFlows(flows: Extract<A2ASecuritySchemeConfig, { scheme: "oauth2" }>["flows"]): OAuthFlows {
  const { authorization_code: code, client_credentials: client, device_code: device } = flows;
  if (code) {
    return {
      flow: {
        $case: "authorizationCode",
        value: {
          authorizationUrl: code.authorization_url,
          tokenUrl: code.token_url,
          refreshUrl: code.refresh_url ?? "",
          scopes: { ...code.scopes },
          pkceRequired: code.pkce_required ?? false,
        },
      },
    };
  }
  if (client) {
    return {
      flow: {
        $case: "clientCredentials",
        value: { tokenUrl: client.token_url, refreshUrl: client.refresh_url ?? "", scopes: { ...client.scopes } },
      },
    };
  }
  // The config schema requires exactly one flow.
  const d = device!;
  return {
    flow: {
      $case: "deviceCode",
      value: {
        deviceAuthorizationUrl: d.device_authorization_url,
        tokenUrl: d.token_url,
        refreshUrl: d.refresh_url ?? "",
        scopes: { ...d.scopes },
      },
    },
  };
}

/**
 * A v1.0 scheme in v0.3's OpenAPI shape (`{ type: "http", scheme: "bearer" }`, ...), for the v0.3 fields
 * of the served card. Their keys never clash with v1.0's (`httpAuthSecurityScheme`, ...), so one JSON
 * object can carry both and each version's reader finds its own.
 */
export function legacySecurityScheme(scheme: SecurityScheme): Record<string, unknown> {
  const inner = scheme.scheme;
  if (!inner) return {};
  const description = inner.value.description ? { description: inner.value.description } : {};
  switch (inner.$case) {
    case "httpAuthSecurityScheme": {
      const format = inner.value.bearerFormat ? { bearerFormat: inner.value.bearerFormat } : {};
      // As the SDK's own v1.0 -> v0.3 translation: the name as given (HTTP scheme names ignore case).
      return { type: "http", scheme: inner.value.scheme, ...format, ...description };
    }
    case "apiKeySecurityScheme":
      return { type: "apiKey", in: inner.value.location, name: inner.value.name, ...description };
    case "oauth2SecurityScheme": {
      const metadata = inner.value.oauth2MetadataUrl ? { oauth2MetadataUrl: inner.value.oauth2MetadataUrl } : {};
      return { type: "oauth2", flows: legacyFlows(inner.value.flows), ...metadata, ...description };
    }
    case "openIdConnectSecurityScheme":
      return { type: "openIdConnect", openIdConnectUrl: inner.value.openIdConnectUrl, ...description };
    case "mtlsSecurityScheme":
      return { type: "mutualTLS", ...description };
  }
}

/** v0.3 has no device code flow: such a scheme is listed without flows there, as the SDK translates it. */
function legacyFlows(flows: OAuthFlows | undefined): Record<string, unknown> {
  const flow = flows?.flow;
  if (!flow || flow.$case === "deviceCode") return {};
  const { scopes, refreshUrl } = flow.value;
  const refresh = refreshUrl ? { refreshUrl } : {};
  switch (flow.$case) {
    case "authorizationCode":
      return { authorizationCode: { authorizationUrl: flow.value.authorizationUrl, tokenUrl: flow.value.tokenUrl, scopes, ...refresh } };
    case "clientCredentials":
      return { clientCredentials: { tokenUrl: flow.value.tokenUrl, scopes, ...refresh } };
    case "implicit":
      return { implicit: { authorizationUrl: flow.value.authorizationUrl, scopes, ...refresh } };
    case "password":
      return { password: { tokenUrl: flow.value.tokenUrl, scopes, ...refresh } };
  }
}

/** v1.0 `securityRequirements` as v0.3's `security` (`[{ bearer: [] }]`). */
export function legacySecurity(requirements: SecurityRequirement[]): Array<Record<string, string[]>> {
  return requirements.map((requirement) =>
    Object.fromEntries(Object.entries(requirement.schemes).map(([name, scopes]) => [name, [...scopes.list]])),
  );
}
