import { AgentCard } from "@a2a-js/sdk";
import { HTTPException } from "hono/http-exception";
import type { A2ARequestScope } from "../request-scope.js";
import type { ExtendedCardContext, ExtendedCardHook } from "./options.js";

/**
 * langgraph.json `a2a.extended_card` given as a JSON file (`source` names it in errors): the fields an
 * authenticated caller sees on top of the public card, in A2A v1.0 JSON names. Merged over the public
 * card: objects field by field (`capabilities`, `provider`), other values replaced, and `skills` by id —
 * a skill with the id of a public one replaces it, the others are appended. Checked here, at start-up.
 */
export function extendedCardFromJson(json: unknown, source: string): ExtendedCardHook {
  if (!isObject(json)) throw new Error(`${source}: expected a JSON object with the card fields to add (A2A v1.0 AgentCard JSON)`);
  const skills = json.skills;
  if (skills !== undefined) {
    if (!Array.isArray(skills)) throw new Error(`${source}: skills must be an array`);
    skills.forEach((skill, index) => {
      if (!isObject(skill) || typeof skill.id !== "string" || skill.id === "")
        throw new Error(`${source}: skills[${index}] must be an object with a string id`);
    });
  }
  try {
    AgentCard.fromJSON(json);
  } catch (error) {
    throw new Error(`${source}: not readable as A2A v1.0 AgentCard JSON: ${(error as Error).message}`, { cause: error });
  }
  return (card) => mergeCard(card, json);
}

function mergeCard(card: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const merged = mergeObjects(card, extra);
  if (Array.isArray(extra.skills)) {
    const publicSkills = (Array.isArray(card.skills) ? card.skills : []) as Array<Record<string, unknown>>;
    const extraSkills = extra.skills as Array<Record<string, unknown>>;
    const byId = new Map(extraSkills.map((skill) => [skill.id, skill]));
    merged.skills = [
      ...publicSkills.map((skill) => byId.get(skill.id) ?? skill),
      ...extraSkills.filter((skill) => !publicSkills.some((p) => p.id === skill.id)),
    ];
  }
  return merged;
}

function mergeObjects(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = merged[key];
    merged[key] = isObject(current) && isObject(value) ? mergeObjects(current, value) : structuredClone(value);
  }
  return merged;
}

/**
 * The caller an extended card may be given to. Under custom auth, only an authenticated one: the auth
 * middleware already refuses requests its `authenticate` refuses, but a handler may let a caller in as
 * `is_authenticated: false` (an anonymous user), and a binding that reaches the request handler without
 * the routes' scope has no caller at all — both get a 401, never the card. Without custom auth everyone
 * is anonymous and the card is as public as the rest of the server.
 */
export function extendedCardCaller(scope: A2ARequestScope, authConfigured: boolean): ExtendedCardContext["user"] {
  const user = scope.auth?.user;
  if (!authConfigured) return user ?? null;
  if (!user || user.is_authenticated === false) {
    throw new HTTPException(401, { message: "The extended agent card is only served to authenticated callers" });
  }
  return user;
}

/**
 * The extended card: the hook's answer to a fresh v1.0 JSON copy of the public card. An answer that is
 * not a card is the project's mistake, reported as such (clients see an internal error). The hook may
 * leave the interfaces out: the public card's are kept then (v0.3 callers need the 0.3 one).
 */
export async function extendedCard(publicCard: AgentCard, hook: ExtendedCardHook, context: ExtendedCardContext): Promise<AgentCard> {
  const answer: unknown = await hook(AgentCard.toJSON(publicCard) as Record<string, unknown>, context);
  if (!isObject(answer)) {
    throw new Error(`a2a.extended_card returned ${answer === null ? "null" : typeof answer}, not an agent card object`);
  }
  let card: AgentCard;
  try {
    card = AgentCard.fromJSON(answer);
  } catch (error) {
    throw new Error(`a2a.extended_card returned a card that is not A2A v1.0 AgentCard JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return card.supportedInterfaces.length > 0 ? card : { ...card, supportedInterfaces: publicCard.supportedInterfaces };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
