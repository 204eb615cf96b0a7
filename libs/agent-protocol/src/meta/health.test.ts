import { afterEach, describe, expect, it, vi } from "vitest";
import { drivers } from "@agent-server/testing";
import { startTestServer, type TestServer } from "../../test/support/index.js";

describe.each(drivers)("health checks on $name", (driver) => {
  let server: TestServer | undefined;
  let dispose: (() => Promise<void>) | undefined;

  afterEach(async () => {
    await server?.close();
    await dispose?.();
    vi.restoreAllMocks();
  });

  it("/ok?check_db=1 and /ready name the database: ok while it answers, 503 `unavailable` once it does not", async () => {
    const opened = await driver.open();
    dispose = opened.dispose;
    server = await startTestServer(opened.storage);
    expect(await (await fetch(`${server.url}/ok`)).json()).toEqual({ ok: true });
    const ok = await fetch(`${server.url}/ok?check_db=1`);
    expect([ok.status, await ok.json()]).toEqual([200, { ok: true, services: { database: "ok" } }]);
    const ready = await fetch(`${server.url}/ready`);
    expect([ready.status, await ready.json()]).toEqual([200, { ready: true, draining: false, services: { database: "ok" } }]);

    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await opened.storage.close();
    const down = await fetch(`${server.url}/ok?check_db=true`);
    expect([down.status, await down.json()]).toEqual([503, { ok: false, services: { database: "unavailable" } }]);
    const notReady = await fetch(`${server.url}/ready`);
    expect([notReady.status, await notReady.json()]).toEqual([
      503,
      { ready: false, draining: false, services: { database: "unavailable" } },
    ]);
    // Liveness does not depend on the database; the reason goes to the log, not to the caller.
    expect((await fetch(`${server.url}/ok`)).status).toBe(200);
    expect(logged).toHaveBeenCalledWith(
      "health check: database unavailable:",
      expect.objectContaining({ message: expect.stringMatching(/closed/) }),
    );
    const refused = await fetch(`${server.url}/ok?check_db=yes`);
    expect(refused.status).toBe(422);
  });
});
