import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { authenticatesRequests } from "@agent-server/agent-protocol";
import { InvalidInputError } from "@agent-server/core";
import type { LangGraphConfig } from "@agent-server/engine";
import { extendedCardFromJson, type A2ARoutesOptions, type ExtendedCardHook } from "@agent-server/interop";
import type { Logger } from "../observability/index.js";
import { importProjectFile } from "../project-module.js";

/**
 * The A2A routes' options from langgraph.json's `a2a` block and the loaded custom auth: the default
 * assistant, the card settings, whether requests are authenticated, and the extended card (loaded
 * here, at start-up, so a broken file stops the start instead of failing the first caller).
 */
export async function a2aRouteOptions(config: LangGraphConfig, cwd: string, auth: unknown, logger: Logger): Promise<A2ARoutesOptions> {
  const a2a = config.a2a;
  const authConfigured = authenticatesRequests(auth);
  let extendedCard: ExtendedCardHook | undefined;
  if (a2a?.extended_card) {
    logger.info({ extended_card: a2a.extended_card }, `Loading the A2A extended agent card from ${a2a.extended_card}`);
    extendedCard = await loadExtendedCard(a2a.extended_card, cwd);
    if (!authConfigured) {
      logger.warn(
        { extended_card: a2a.extended_card },
        "a2a.extended_card without auth.path: no caller is authenticated, so every caller gets the extended card",
      );
    }
  }
  if (a2a?.security !== undefined && !authConfigured) {
    logger.warn({}, "a2a.security has no effect without auth.path: the server takes every caller, so the cards declare no security scheme");
  }
  return {
    defaultAssistant: a2a?.default_assistant,
    logger: logger.child({ source: "a2a" }),
    cardConfig: a2a,
    authConfigured,
    extendedCard,
  };
}

/**
 * `a2a.extended_card`: `"./extended-card.json"` (fields merged over the public card) or
 * `"./card.ts:extendCard"` (a function `(card, { user, assistant }) => card`; no export name: `default`),
 * relative to the project folder. Any problem is a project error naming the setting (exit 2).
 */
export async function loadExtendedCard(spec: string, cwd: string): Promise<ExtendedCardHook> {
  const label = `a2a.extended_card "${spec}"`;
  const [file = "", exportName = "default"] = spec.split(":", 2);
  const path = resolve(cwd, file);
  if (!existsSync(path)) throw new InvalidInputError(`${label}: file not found: ${path}`);
  if (path.endsWith(".json")) {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(path, "utf8"));
    } catch (error) {
      throw new InvalidInputError(`${label}: ${path} is not valid JSON: ${(error as Error).message}`);
    }
    try {
      return extendedCardFromJson(json, label);
    } catch (error) {
      throw new InvalidInputError((error as Error).message);
    }
  }
  const module = await importProjectFile(path);
  const hook: unknown = await module[exportName];
  if (typeof hook !== "function") {
    throw new InvalidInputError(`${label}: export "${exportName}" of ${path} is not a function (card, { user, assistant }) => card`);
  }
  return hook as ExtendedCardHook;
}
