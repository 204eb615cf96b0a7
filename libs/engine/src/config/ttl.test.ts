import { describe, expect, it } from "vitest";
import { LangGraphConfigSchema } from "./langgraph-config.js";
import { threadTtlFor, ttlOptions } from "./ttl.js";

const parse = (json: unknown) => LangGraphConfigSchema.safeParse({ graphs: {}, ...(json as object) });

describe("langgraph.json checkpointer.ttl and store.ttl", () => {
  it("reads minutes (fractions too) and fills in the Python server's defaults", () => {
    const config = parse({
      checkpointer: { ttl: { strategy: "keep_latest", default_ttl: 0.05, sweep_interval_minutes: 0.01, sweep_limit: 7 } },
      store: { ttl: { default_ttl: 2, refresh_on_read: false } },
    });
    expect(config.success).toBe(true);
    expect(ttlOptions(config.data!)).toEqual({
      threads: { strategy: "keep_latest", defaultMinutes: 0.05, sweepIntervalMs: 600, sweepLimit: 7 },
      store: { defaultMinutes: 2, refreshOnRead: false, sweepIntervalMs: 3_600_000, sweepLimit: 1000 },
    });
    expect(ttlOptions(parse({}).data!)).toEqual({
      threads: { strategy: "delete", sweepIntervalMs: 300_000, sweepLimit: 1000 },
      store: { refreshOnRead: true, sweepIntervalMs: 3_600_000, sweepLimit: 1000 },
    });
  });

  it("refuses bad values naming the key", () => {
    const cases: [unknown, RegExp][] = [
      [{ checkpointer: { ttl: { strategy: "archive" } } }, /strategy/],
      [{ checkpointer: { ttl: { default_ttl: 0 } } }, /default_ttl/],
      [{ checkpointer: { ttl: { default_ttl: "60" } } }, /default_ttl/],
      [{ checkpointer: { ttl: { sweep_limit: 1.5 } } }, /sweep_limit/],
      [{ checkpointer: { ttl: { sweep_interval_minutes: -1 } } }, /sweep_interval_minutes/],
      [{ store: { ttl: { refresh_on_read: "yes" } } }, /refresh_on_read/],
      [{ store: { ttl: { default_ttl: 1e12 } } }, /default_ttl/],
    ];
    for (const [json, message] of cases) {
      const parsed = parse(json);
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues[0]!.message).toMatch(message);
    }
  });

  it("a thread's TTL: the request's (its strategy, else the configured one), else the default, else none", () => {
    const threads = ttlOptions(parse({ checkpointer: { ttl: { strategy: "keep_latest", default_ttl: 10 } } }).data!).threads;
    expect(threadTtlFor(threads, { ttl: 1 })).toEqual({ strategy: "keep_latest", minutes: 1 });
    expect(threadTtlFor(threads, { strategy: "delete", ttl: 1 })).toEqual({ strategy: "delete", minutes: 1 });
    expect(threadTtlFor(threads)).toEqual({ strategy: "keep_latest", minutes: 10 });
    expect(threadTtlFor(ttlOptions({}).threads)).toBeUndefined();
  });
});
