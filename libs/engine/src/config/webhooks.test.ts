import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadLangGraphConfig } from "./langgraph-config.js";
import { unsupportedConfigKeys } from "./unsupported-keys.js";
import { outboundUrlPolicy } from "./webhooks.js";

describe("langgraph.json webhooks", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  async function load(webhooks: unknown) {
    const dir = mkdtempSync(join(tmpdir(), "lgcfg-webhooks-"));
    dirs.push(dir);
    const path = join(dir, "langgraph.json");
    writeFileSync(path, JSON.stringify({ graphs: {}, webhooks }));
    return (await loadLangGraphConfig(path)).config;
  }

  it("without a webhooks.url section: dev trusts loopback and private networks, serve does not; paths stay allowed", () => {
    expect(outboundUrlPolicy(undefined, "dev")).toEqual({
      requireHttps: false,
      allowedDomains: [],
      allowedPorts: [],
      maxUrlLength: 4096,
      allowRelative: true,
      allowLoopback: true,
      allowPrivate: true,
    });
    expect(outboundUrlPolicy({}, "serve")).toMatchObject({ allowRelative: true, allowLoopback: false, allowPrivate: false });
  });

  it("reads webhooks.url with the Python server's names and defaults (require_https true, 2048 characters)", async () => {
    const config = await load({
      url: { allowed_domains: ["hooks.example.com", "*.mycorp.com"], allowed_ports: [443], disable_private_ips: false },
    });
    expect(outboundUrlPolicy(config.webhooks, "serve")).toEqual({
      requireHttps: true,
      allowedDomains: ["hooks.example.com", "*.mycorp.com"],
      allowedPorts: [443],
      maxUrlLength: 2048,
      allowRelative: true,
      allowLoopback: false,
      allowPrivate: true,
    });
    const explicit = await load({ url: { require_https: false, max_url_length: 300, disable_loopback: true } });
    expect(outboundUrlPolicy(explicit.webhooks, "dev")).toMatchObject({
      requireHttps: false,
      maxUrlLength: 300,
      allowRelative: false,
      allowLoopback: false,
      allowPrivate: true,
    });
    expect(outboundUrlPolicy((await load({ url: { disable_loopback: false } })).webhooks, "serve")).toMatchObject({
      allowRelative: true,
      allowLoopback: true,
    });
  });

  it.each([
    [{ url: { allowed_domains: ["hooks.*.com"] } }, /webhooks\.url\.allowed_domains\.0: a wildcard can only be used as a prefix/],
    [{ url: { allowed_domains: [""] } }, /webhooks\.url\.allowed_domains\.0/],
    [{ url: { allowed_ports: [0] } }, /webhooks\.url\.allowed_ports\.0/],
    [{ url: { require_https: "yes" } }, /webhooks\.url\.require_https/],
    [{ url: { disable_loopbacks: true } }, /webhooks\.url: Unrecognized key: "disable_loopbacks"/],
  ])("refuses %j at start", async (webhooks, message) => {
    await expect(load(webhooks)).rejects.toThrow(message);
  });

  it("honours webhooks.url; headers, env_prefix and allowed_fields are reported as not supported", async () => {
    const config = await load({
      url: {},
      env_prefix: "LG_WEBHOOK_",
      headers: { "x-token": "${{ env.LG_WEBHOOK_TOKEN }}" },
      allowed_fields: ["run_id"],
    });
    expect(unsupportedConfigKeys(config)).toEqual(["webhooks.env_prefix", "webhooks.headers", "webhooks.allowed_fields"]);
  });
});
