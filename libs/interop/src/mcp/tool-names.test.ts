import { describe, expect, it } from "vitest";
import { assignToolNames, sanitizeToolName } from "./tool-names.js";

describe("tool names", () => {
  it.each([
    ["agent", "agent"],
    ["My agent (v2)!", "My_agent_v2"],
    ["research.assistant", "research_assistant"],
    ["--weird--", "weird"],
    ["日本語", "assistant"],
    ["", "assistant"],
    ["a".repeat(80), "a".repeat(64)],
    [`${"b".repeat(63)}!!x`, "b".repeat(63)],
  ])("sanitizes %j to %j", (name, expected) => {
    const sanitized = sanitizeToolName(name);
    expect(sanitized).toBe(expected);
    expect(sanitized).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it("keeps the first claimant's name and suffixes later collisions (also case-only ones) with the assistant id", () => {
    const named = assignToolNames([
      { assistant_id: "6ba7b821-9dad-11d1-80b4-00c04fd430c8", name: "agent" },
      { assistant_id: "0f3a9c2e-1111-4222-8333-444455556666", name: "Agent" },
      { assistant_id: "0f3a9c2e-9999-4222-8333-444455556666", name: "agent!" },
      { assistant_id: "aaaaaaaa-0000-4000-8000-000000000000", name: "other" },
    ]);
    expect(named.map((entry) => entry.name)).toEqual([
      "agent",
      "Agent_0f3a9c2e",
      // Same 8-digit prefix as the one before: the whole id tells them apart.
      "agent_0f3a9c2e999942228333444455556666",
      "other",
    ]);
    for (const { name } of named) expect(name.length).toBeLessThanOrEqual(64);
  });

  it("is deterministic: the same assistants in the same order get the same names", () => {
    const assistants = Array.from({ length: 20 }, (_, i) => ({ assistant_id: crypto.randomUUID(), name: i % 2 ? "twin" : "Twin" }));
    expect(assignToolNames(assistants)).toEqual(assignToolNames(assistants));
    expect(new Set(assignToolNames(assistants).map((e) => e.name.toLowerCase())).size).toBe(20);
  });

  it("fits long names with their suffix into 64 characters", () => {
    const long = "x".repeat(100);
    const [first, second] = assignToolNames([
      { assistant_id: "11111111-2222-4333-8444-555555555555", name: long },
      { assistant_id: "66666666-7777-4888-8999-000000000000", name: long },
    ]);
    expect(first!.name).toBe("x".repeat(64));
    expect(second!.name).toBe(`${"x".repeat(55)}_66666666`);
  });
});
