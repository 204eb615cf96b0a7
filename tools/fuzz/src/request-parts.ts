import fc from "fast-check";
import type { FuzzRequest } from "./http-exchange.js";
import { confineUrls, contentType, toJsonText, type Labeled } from "./hostile-values.js";
import { ATTACKER, VICTIM, type World } from "./world.js";

/** One route of a campaign: a name (the failure groups' route) and the requests generated for it. */
export interface FuzzTarget {
  name: string;
  arbitrary: fc.Arbitrary<FuzzRequest>;
  /** Multiplies the campaign's runs per target (the A2A bindings cover many methods behind one route). */
  weight?: number;
}

/**
 * Who sends a request. On an auth server: mostly the attacker, sometimes nobody or an identity that is
 * neither user. Never the victim (or anything the server could read as the victim): the victim's resources
 * must come out of the campaign unchanged.
 */
export function caller(world: World): fc.Arbitrary<Labeled<string | undefined>> {
  if (!world.auth) return fc.constant({ label: "", value: undefined });
  return fc.oneof(
    { weight: 10, arbitrary: fc.constant({ label: "", value: ATTACKER as string | undefined }) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom<string | undefined>(undefined, "BOB", "mallory", "b\xf6b", `${VICTIM},${ATTACKER}`, "*", "x".repeat(4096))
        .map((value) => ({ label: `x-user=${value === undefined ? "none" : JSON.stringify(value.slice(0, 20))}`, value })),
    },
  );
}

/** Query values beyond what the schema allows. */
export const hostileQueryValue: fc.Arbitrary<Labeled<string>> = fc
  .constantFrom("-1", "9e12", "NaN", "Infinity", "", "true", "[]", "{", "%00", "%ZZ", "1.5", "x".repeat(5000), "%E2%80%AE", "null")
  .map((value) => ({ label: `=${JSON.stringify(value.slice(0, 12))}`, value }));

/** Assembles the wire request; body values are serialized with `toJsonText` and every URL confined to loopback. */
export function buildRequest(parts: {
  method: string;
  path: string;
  route: string;
  labels: string[];
  user: Labeled<string | undefined>;
  contentType: Labeled<string | undefined>;
  body?: { value: unknown; raw?: string | undefined; isRaw?: boolean } | undefined;
  extraHeaders?: Record<string, string>;
  sinkUrl: string;
  jsonRpc?: boolean;
}): FuzzRequest {
  const headers: Record<string, string> = { ...parts.extraHeaders };
  if (parts.user.value !== undefined) headers["x-user"] = parts.user.value;
  let body: string | undefined;
  if (parts.body) {
    body = parts.body.isRaw ? parts.body.raw : toJsonText(parts.body.value);
    if (body !== undefined) body = confineUrls(body, parts.sinkUrl);
    if (parts.contentType.value !== undefined) headers["content-type"] = parts.contentType.value;
  }
  const labels = [...parts.labels, parts.user.label, parts.body ? parts.contentType.label : ""].filter(Boolean);
  return {
    method: parts.method,
    path: parts.path,
    headers,
    body,
    route: parts.route,
    label: labels.join(", ") || "valid",
    jsonRpc: parts.jsonRpc,
  };
}

export { contentType };
