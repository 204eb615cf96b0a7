import { randomBytes } from "node:crypto";
import { matchesSubscription } from "@langchain/langgraph/stream";
import type { ThreadEvent } from "@agent-server/engine";
import { ProtocolError } from "./envelopes.js";
import { FilterFields, parseParams } from "./params.js";
import { z } from "@hono/zod-openapi";

/** Which events a stream or subscription wants: channels, namespace prefixes, depth below them. */
export interface EventFilter {
  channels: string[];
  namespaces?: string[][];
  depth?: number;
}

const Filter = z.object(FilterFields);
const PREFIX = "sub.";
/** Longest subscription id this server hands out or accepts (the filter is in it). */
const MAX_ID_LENGTH = 8192;

/**
 * Whether `event` is one `filter` asks for: its channel (`custom:<name>` is also matched by `custom`),
 * a namespace under one of the prefixes (a prefix segment without `:` matches any `name:<id>`), at most
 * `depth` below it. LangGraph's own predicate, the one the SDK filters with, so both sides agree.
 */
export function filterMatches(event: ThreadEvent, filter: EventFilter): boolean {
  return matchesSubscription(event, filter as never);
}

/**
 * A subscription's id carries its filter (and a nonce, so equal filters get distinct ids): any process,
 * after a restart too, can restore a subscription from its id alone (`subscription.reconnect`), and
 * nothing is kept per subscription beyond the connection that serves it.
 */
export function subscriptionId(filter: EventFilter): string {
  const body = Buffer.from(JSON.stringify(filter)).toString("base64url");
  return `${PREFIX}${randomBytes(6).toString("base64url")}.${body}`;
}

/** The filter inside a subscription id this server made; `no_such_subscription` for anything else. */
export function subscriptionFilter(id: string): EventFilter {
  const body = id.length <= MAX_ID_LENGTH && id.startsWith(PREFIX) ? id.slice(PREFIX.length).split(".")[1] : undefined;
  let decoded: unknown;
  try {
    decoded = body ? JSON.parse(Buffer.from(body, "base64url").toString("utf8")) : undefined;
  } catch {
    decoded = undefined;
  }
  const parsed = Filter.safeParse(decoded);
  if (!parsed.success) throw new ProtocolError("no_such_subscription", `Unknown subscription: ${id.slice(0, 100)}`);
  return parsed.data;
}

/** A filter from command params (`subscription.subscribe`) or a stream request body. */
export function parseFilter(method: string, params: unknown): EventFilter {
  const { channels, namespaces, depth } = parseParams(method, Filter.passthrough(), params);
  const filter: EventFilter = { channels, ...(namespaces ? { namespaces } : {}), ...(depth !== undefined ? { depth } : {}) };
  if (JSON.stringify(filter).length > MAX_ID_LENGTH / 2) throw new ProtocolError("invalid_argument", `${method}: filter too large`);
  return filter;
}
