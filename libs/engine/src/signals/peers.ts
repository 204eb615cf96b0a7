/**
 * Which other engines listen on the same database's signals, so that an engine alone on its database
 * (one `serve` process over PostgreSQL, the usual deployment) does not pay a NOTIFY, a round trip and
 * a commit for every run's end and wake-up that nobody hears: ~1.6 statements of ~9.6 per A2A message.
 *
 * Membership by announcement: an engine says `hello` once it listens (every engine hearing it answers
 * `here`, so the newcomer learns of them at once) and `here` again every `heartbeatMs`; a peer not heard
 * from for `timeoutMs` is taken as gone (stopped, crashed, or cut off, in which case it degrades to the
 * polls every reader has, as for any lost signal, until its next heartbeat arrives).
 */
export class Peers {
  private readonly lastHeard = new Map<string, number>();

  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  heard(origin: string): void {
    this.lastHeard.set(origin, this.now());
  }

  /** Whether another engine was heard within the timeout. O(peers), forgetting the ones gone. */
  any(): boolean {
    const oldest = this.now() - this.timeoutMs;
    for (const [origin, at] of this.lastHeard) {
      if (at >= oldest) return true;
      this.lastHeard.delete(origin);
    }
    return false;
  }
}

/** What travels on the peers channel. */
export interface PeerSignal {
  origin: string;
  /** `hello`: an engine began to listen (answer `here`); `here`: an engine still listens. */
  kind: "hello" | "here";
}
