import { startRestartablePostgres, type RestartablePostgres } from "@agent-server/testing/postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { killAll } from "../support/cli-process.js";
import { runOutageScenario, type OutageKind } from "./harness.js";

// Issue 39: PostgreSQL restarted under load must not take the servers down. Each scenario runs two
// `serve` processes on a fresh database of a PostgreSQL of this file's own (the run's shared server
// stays untouched), loads them, takes the database away for 8 s and checks what every client saw.

let postgres: RestartablePostgres;

beforeAll(async () => {
  postgres = await startRestartablePostgres();
}, 60_000);

afterEach(async () => {
  await killAll();
  // A failed scenario may leave the database stopped: the next one needs it.
  if (!postgres.running) await postgres.start();
});

afterAll(async () => {
  await postgres?.destroy();
});

const scenarios: Array<[OutageKind, string]> = [
  ["fast", "stopped in fast mode (pg_ctl stop -m fast) for 8 s"],
  ["immediate", "stopped in immediate mode (SIGQUIT, crash recovery on start) for 8 s"],
  ["terminate", "with every connection of ours cut (pg_terminate_backend) again and again for 8 s"],
];

describe("two serve processes over one PostgreSQL, under load, while the database goes away", () => {
  it.each(scenarios)(
    "%s: PostgreSQL %s — no process exits, every answer is a success or a 503 that says why, all acknowledged work reads back",
    async (outage) => {
      const { figures, problems, serverLog } = await runOutageScenario({ postgres, outage, outageMs: 8000, recoveryMs: 15_000 });
      console.log(`postgres outage (${outage}): ${JSON.stringify(figures)}`);
      if (problems.length > 0) console.log(`postgres outage (${outage}): server log:\n${serverLog}`);
      expect(problems).toEqual([]);
      // The load kept going through the outage (figures that would hide a scenario that did nothing).
      expect(figures.tasksAcked).toBeGreaterThan(0);
      expect(figures.runsAcked).toBeGreaterThan(0);
      expect(figures.serverExits).toBe(0);
    },
    150_000,
  );
});
