import { startRestartablePostgres, type RestartablePostgres } from "@agent-server/testing/postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { jsonLines, killAll, runCli } from "../support/cli-process.js";
import { CRASH_LOOP_CONFIG } from "../support/crash-loop.js";
import { freePort } from "../support/ports.js";

// Issue 39, start-up: a server started before its database (compose, a node reboot) waits for it, saying
// so, instead of exiting at the first refused connection; one whose database never comes gives up with
// exit code 2 and a line naming the database.

let postgres: RestartablePostgres;

beforeAll(async () => {
  postgres = await startRestartablePostgres();
}, 60_000);

afterEach(async () => {
  await killAll();
  if (!postgres.running) await postgres.start();
});

afterAll(async () => {
  await postgres?.destroy();
});

const serveArgs = (databaseUrl: string, wait: string) => [
  ...["serve", "--config", CRASH_LOOP_CONFIG, "--host", "127.0.0.1", "--port", "0", "--workers", "2"],
  ...["--storage", "postgres", "--database-url", databaseUrl, "--database-wait", wait],
];

describe("serve before PostgreSQL is up", () => {
  it("nothing listens on the database's port: retries for --database-wait, then exits 2 with one line naming it", async () => {
    const port = await freePort();
    const started = Date.now();
    const run = runCli(serveArgs(`postgres://postgres:secret@127.0.0.1:${port}/agents`, "3"));
    const code = await run.exited;
    const elapsed = Date.now() - started;
    const lines = jsonLines(run.stdout());
    const retries = lines.filter((l) => l.level === 40 && /is not reachable/.test(String(l.msg)));
    const errors = lines.filter((l) => Number(l.level) >= 50);
    console.log(`database never up: exit ${code} after ${elapsed} ms, ${retries.length} retry lines; last: ${String(errors.at(-1)?.msg)}`);

    expect(code).toBe(2);
    expect(retries[0]?.msg).toBe(
      `PostgreSQL at 127.0.0.1:${port}/agents is not reachable (ECONNREFUSED); retrying in 1.0 s (attempt 2, giving up after 3 s)`,
    );
    expect(retries.length).toBeGreaterThanOrEqual(2);
    expect(errors).toHaveLength(1);
    expect(errors[0].msg).toMatch(
      new RegExp(
        `^PostgreSQL at 127\\.0\\.0\\.1:${port}/agents is not reachable \\(ECONNREFUSED\\): gave up after \\d+ attempt\\(s\\) in 3 s`,
      ),
    );
    expect(`${run.stdout()}${run.stderr()}`).not.toContain("secret"); // the password is never logged
    expect(run.stderr()).toBe("");
    // It waited (about 3 s), and no longer than that plus the CLI's own start.
    expect(elapsed).toBeGreaterThanOrEqual(3000);
  }, 60_000);

  it("the database starts 2 s after the server: the server waits, then comes up and its database check answers 200", async () => {
    const databaseUrl = await postgres.createDatabase(`startup_${Date.now().toString(36)}`);
    await postgres.stop();
    const run = runCli(serveArgs(databaseUrl, "30"));
    await run.waitFor(/is not reachable/, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const databaseStartedAt = Date.now();
    await postgres.start();
    const [, url] = await run.waitFor(/listening on (http:\/\/[^\s"]+)/, 60_000);
    const upAfterMs = Date.now() - databaseStartedAt;
    const check = await fetch(`${url}/ok?check_db=1`);
    const retries = jsonLines(run.stdout()).filter((l) => /is not reachable/.test(String(l.msg)));
    console.log(`database started late: server listening ${upAfterMs} ms after the database started, after ${retries.length} retry lines`);

    expect(check.status).toBe(200);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries[0].msg).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+\/startup_\w+ is not reachable \((ECONNREFUSED|57P03)\); retrying in/);
    expect(run.child.exitCode).toBeNull();
  }, 90_000);
});
