import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { startTestServer, type TestServer } from "../testing/index.js";

describe("error shape", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(createMemoryStorage());
  });
  afterAll(() => server.close());

  it("answers a malformed JSON body with 422 and a detail, never 400 or 500", async () => {
    for (const path of ["/threads", "/assistants/search", "/runs/wait"]) {
      const response = await fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
      expect(response.status, path).toBe(422);
      expect(await response.json()).toMatchObject({ detail: expect.stringContaining("JSON") });
    }
  });
});
