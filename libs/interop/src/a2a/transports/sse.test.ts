import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { sseResponse } from "./sse.js";

/**
 * The SSE writer keeps a silent stream alive (a SubscribeToTask waiting for input): a comment line
 * while no event comes, which clients skip; events and the stream's end are unchanged.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function* events(): AsyncGenerator<{ n: number }, void, undefined> {
  yield { n: 1 };
  await sleep(170);
  yield { n: 2 };
}

function app(keepAliveMs: number): Hono {
  const hono = new Hono();
  hono.get("/", async (c) => {
    const iterator = events();
    const first = await iterator.next();
    return sseResponse(
      c,
      first,
      iterator,
      (event) => event,
      () => ({ error: true }),
      keepAliveMs,
    );
  });
  return hono;
}

describe("sseResponse", () => {
  it("writes a comment every keep-alive interval without an event, between the events", async () => {
    const text = await (await app(50).request("/")).text();
    const lines = text.split("\n").filter((line) => line !== "");
    expect(lines[0]).toBe('data: {"n":1}');
    expect(lines.at(-1)).toBe('data: {"n":2}');
    const comments = lines.slice(1, -1);
    expect(comments.length).toBeGreaterThanOrEqual(2);
    expect(new Set(comments)).toEqual(new Set([": keep-alive"]));
  });

  it("writes none while events come sooner", async () => {
    const text = await (await app(1000).request("/")).text();
    expect(text.split("\n").filter((line) => line !== "")).toEqual(['data: {"n":1}', 'data: {"n":2}']);
  });
});
