import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidInputError } from "@agent-server/core";
import { loadLangGraphConfig } from "../config/langgraph-config.js";
import { unsupportedConfigKeys } from "../config/unsupported-keys.js";
import { webhookSigningKey } from "../config/webhooks.js";
import { parseSigningSecret, signatureHeaders, WEBHOOK_SECRET_ENV } from "./signing.js";

const base64Of = (bytes: number) => Buffer.alloc(bytes, 7).toString("base64");

describe("webhook signing secrets", () => {
  it("reads whsec_<base64> as the decoded bytes and any other string as its UTF-8 bytes", () => {
    const key = Buffer.from("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "base64");
    expect(parseSigningSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "s")).toEqual(key);
    expect(parseSigningSecret(`whsec_${base64Of(32)}`, "s")).toEqual(Buffer.alloc(32, 7));
    // Padding may be left out, as some senders print their secrets.
    expect(parseSigningSecret(`whsec_${base64Of(25).replace(/=+$/, "")}`, "s")).toEqual(Buffer.alloc(25, 7));
    expect(parseSigningSecret("plain secret é", "s")).toEqual(Buffer.from("plain secret é", "utf8"));
  });

  it.each([
    ["whsec_not*base64!!not*base64!!not*base64!!", /does not decode/],
    ["whsec_", /does not decode/],
    ["whsec_QUJD RA==", /does not decode/],
    [`whsec_${base64Of(24)}x`, /does not decode/],
    [`whsec_${base64Of(16)}`, /at least 24 bytes of key \(it holds 16\)/],
  ])("refuses %s, naming the setting and not echoing the secret", (secret, reason) => {
    const refuse = () => parseSigningSecret(secret, "langgraph.json webhooks.signing_secret");
    expect(refuse).toThrow(InvalidInputError);
    expect(refuse).toThrow(reason);
    expect(refuse).toThrow(/^langgraph\.json webhooks\.signing_secret: /);
    try {
      refuse();
    } catch (error) {
      if (secret.length > "whsec_".length) expect((error as Error).message).not.toContain(secret.slice("whsec_".length));
      expect((error as Error).message.split("\n")).toHaveLength(1);
    }
  });

  it("signs as the Standard Webhooks example says (id.timestamp.body, HMAC-SHA256, base64, v1)", () => {
    // The published example of the specification and its reference libraries.
    const key = parseSigningSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "s");
    expect(signatureHeaders(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", '{"test": 2432232314}', 1614265330_999)).toEqual({
      "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
      "webhook-timestamp": "1614265330",
      "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    });
  });
});

describe("webhooks.signing_secret and AGENT_SERVER_WEBHOOK_SECRET", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  async function load(webhooks: unknown) {
    const dir = mkdtempSync(join(tmpdir(), "lgcfg-signing-"));
    dirs.push(dir);
    const path = join(dir, "langgraph.json");
    writeFileSync(path, JSON.stringify({ graphs: {}, webhooks }));
    return (await loadLangGraphConfig(path)).config;
  }

  it("reads the secret from langgraph.json, the environment winning; an empty variable counts as unset", async () => {
    const config = await load({ signing_secret: `whsec_${base64Of(24)}` });
    expect(unsupportedConfigKeys(config)).toEqual([]);
    expect(webhookSigningKey(config.webhooks, {})).toEqual(Buffer.alloc(24, 7));
    expect(webhookSigningKey(config.webhooks, { [WEBHOOK_SECRET_ENV]: "from-env" })).toEqual(Buffer.from("from-env"));
    expect(webhookSigningKey(config.webhooks, { [WEBHOOK_SECRET_ENV]: "" })).toEqual(Buffer.alloc(24, 7));
    expect(webhookSigningKey(undefined, { [WEBHOOK_SECRET_ENV]: "from-env" })).toEqual(Buffer.from("from-env"));
    expect(webhookSigningKey((await load({})).webhooks, {})).toBeUndefined();
    expect(webhookSigningKey(undefined, {})).toBeUndefined();
  });

  it("refuses a bad secret at start, naming where it came from", async () => {
    const config = await load({ signing_secret: `whsec_${base64Of(8)}` });
    expect(() => webhookSigningKey(config.webhooks, {})).toThrow(/^langgraph\.json webhooks\.signing_secret: .*at least 24 bytes/);
    // A good variable wins, so the file's bad secret is never used.
    expect(webhookSigningKey(config.webhooks, { [WEBHOOK_SECRET_ENV]: `whsec_${base64Of(24)}` })).toHaveLength(24);
    expect(() => webhookSigningKey(undefined, { [WEBHOOK_SECRET_ENV]: "whsec_%%%" })).toThrow(
      new RegExp(`^${WEBHOOK_SECRET_ENV}: .*does not decode`),
    );
    await expect(load({ signing_secret: "" })).rejects.toThrow(/webhooks\.signing_secret/);
    await expect(load({ signing_secret: 42 })).rejects.toThrow(/webhooks\.signing_secret/);
  });
});
