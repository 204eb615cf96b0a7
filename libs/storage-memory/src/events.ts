import { addMs, nowIso, type EventRepo, type StoredEvent } from "@agent-server/core";
import { wireIn, wireOut, type MemoryState } from "./state.js";

export class MemoryEventRepo implements EventRepo {
  constructor(private readonly state: MemoryState) {}

  async append(runId: string, event: string, data: unknown, options: { ttlMs: number }): Promise<StoredEvent> {
    const stored = wireIn(data);
    let log = this.state.events.get(runId);
    if (!log) this.state.events.set(runId, (log = { nextId: 1, entries: [] }));
    const entry = { event: { id: String(log.nextId), event, data: stored }, expiresAt: addMs(nowIso(), options.ttlMs) };
    log.nextId += 1;
    log.entries.push(entry);
    return wireOut(entry.event);
  }

  async appendMany(runId: string, events: Array<{ event: string; data: unknown }>, options: { ttlMs: number }): Promise<StoredEvent[]> {
    const stored: StoredEvent[] = [];
    for (const { event, data } of events) stored.push(await this.append(runId, event, data, options));
    return stored;
  }

  /** O(events of the run). */
  async list(runId: string, options?: { after?: string; limit?: number }): Promise<StoredEvent[]> {
    const now = nowIso();
    const after = options?.after !== undefined ? Number(options.after) : -Infinity;
    const events = (this.state.events.get(runId)?.entries ?? [])
      .filter((e) => e.expiresAt > now && Number(e.event.id) > after)
      .map((e) => wireOut(e.event));
    return options?.limit !== undefined ? events.slice(0, Math.max(0, options.limit)) : events;
  }

  async lastId(runId: string): Promise<string | null> {
    const log = this.state.events.get(runId);
    return log && log.nextId > 1 ? String(log.nextId - 1) : null;
  }

  /** O(all events). */
  async deleteExpired(now: string): Promise<number> {
    let deleted = 0;
    for (const log of this.state.events.values()) {
      const kept = log.entries.filter((e) => !(e.expiresAt < now));
      deleted += log.entries.length - kept.length;
      log.entries = kept;
    }
    return deleted;
  }

  async deleteForRun(runId: string): Promise<number> {
    const log = this.state.events.get(runId);
    if (!log) return 0;
    const count = log.entries.length;
    // Keep the id counter, so a client's Last-Event-ID never matches a later, different event.
    log.entries = [];
    return count;
  }
}
