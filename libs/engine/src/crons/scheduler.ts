import { Cron as CronExpression } from "croner";
import { InvalidInputError, nowIso, type Cron, type Storage } from "@agent-server/core";
import type { RunCreateRequest } from "../runs/run-request.js";

/** The next tick of a UTC cron schedule strictly after `after`, or null when `end_time` is passed. */
export function nextRunDate(schedule: string, after: string, endTime?: string | null): string | null {
  let expression: CronExpression;
  try {
    expression = new CronExpression(schedule, { timezone: "UTC", paused: true });
  } catch (error) {
    throw new InvalidInputError(`invalid cron schedule "${schedule}": ${(error as Error).message}`);
  }
  const next = expression.nextRun(new Date(after));
  if (!next) return null;
  const iso = next.toISOString();
  return endTime && iso > endTime ? null : iso;
}

/**
 * Fires due crons. Each tick is claimed in storage first (`CronRepo.advance` compare-and-set), so of
 * several processes over one database exactly one fires it; the run then goes through normal admission.
 */
export class CronScheduler {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly fire: (cron: Cron, request: RunCreateRequest) => Promise<unknown>,
    private readonly pollMs: number,
    /** A cron's run could not be created (`cron` set), or a whole round failed (storage unreachable). */
    private readonly onError: (cron: Cron | undefined, error: unknown) => void,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.tick(), this.pollMs);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
  }

  /** Fires every cron due now; resolves when done (tests await it). */
  tick(): Promise<void> {
    this.ticking ??= this.fireDue()
      .catch((error: unknown) => this.onError(undefined, error))
      .finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async fireDue(): Promise<void> {
    const now = nowIso();
    for (const cron of await this.storage.crons.listDue(now, 100)) {
      const expected = cron.next_run_date!;
      const next = nextRunDate(cron.schedule, now, cron.end_time);
      if (!(await this.storage.crons.advance(cron.cron_id, expected, next))) continue;
      try {
        await this.fire(cron, { ...(cron.payload as Partial<RunCreateRequest>), assistant_id: cron.assistant_id });
      } catch (error) {
        this.onError(cron, error);
      }
    }
  }
}
