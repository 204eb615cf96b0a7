import { randomUUID } from "node:crypto";
import type { SignalBus, StorageFault } from "@agent-server/core";
import type { RunEnd } from "../runs/waiters.js";
import type { StreamEvent } from "../streaming/types.js";
import { Peers, type PeerSignal } from "./peers.js";

/** Work was admitted (or a thread freed up) somewhere: idle workers try to claim. Payload: `{origin}`. */
export const WAKE_CHANNEL = "queue";
/** Cancel a run executing in another process: `{origin, runId, action}`; its executor aborts it. */
export const CONTROL_CHANNEL = "control";
/**
 * A process streams a run to a client: `{origin, runId}`. The run's executor sends that run's stream
 * events to other processes only once told so (or when the run is resumable), since a long thread's
 * `values` chunk is the whole state and most runs are followed by nobody elsewhere.
 */
export const FOLLOW_CHANNEL = "follows";
/** Engines saying they listen (peers.ts): `{origin, kind}`. */
export const PEERS_CHANNEL = "peers";
/** How often an engine says it still listens, and how long a silent peer counts as there. */
export const PEER_HEARTBEAT_MS = 10_000;
const PEER_TIMEOUT_MS = 3.5 * PEER_HEARTBEAT_MS;
/** One run's live stream, its end, and answers to a control signal about it. */
export const runChannel = (runId: string): string => `run:${runId}`;
/** One thread's protocol events (the thread streaming protocol), as their appender stored them. */
export const threadChannel = (threadId: string): string => `thread:${threadId}`;

export type CancelAction = "interrupt" | "rollback";

/** What travels on a run's channel. */
export type RunSignal =
  /** One stream event, as the executing process numbered it. */
  | { kind: "event"; origin: string; event: StreamEvent }
  /** The run ended (its streams closed, its waiters woken there). `values` only when its thread is gone. */
  | { kind: "end"; origin: string; end: Omit<RunEnd, "values"> & { values?: RunEnd["values"] } }
  /** The run was handed back for a storage fault (kept, resumed once the database answers). */
  | { kind: "stalled"; origin: string; fault: StorageFault }
  /** The executor of the run answers a control signal: whether the rollback can still erase it. */
  | { kind: "ack"; origin: string; accepted: boolean };

interface ControlSignal {
  origin: string;
  runId: string;
  action: CancelAction;
}

/**
 * The engine's signals over `Storage.signals` (or a bus of its own process when the driver has none).
 * Every signal carries this engine's `origin`; an engine ignores its own, which it has acted on already.
 * Publishing never throws and never waits: a lost signal degrades to the poll that every reader also has
 * (the queue poll, lease renewal, the stream and waiter checks of the run's status).
 */
export class EngineSignals {
  readonly origin = randomUUID();
  /** Whether other processes hear this bus (PostgreSQL): else there is nobody to publish to. */
  readonly crossProcess: boolean;
  private readonly stops: (() => void)[] = [];
  private readonly peers = new Peers(PEER_TIMEOUT_MS);

  constructor(
    readonly bus: SignalBus,
    private readonly onError: (error: unknown) => void,
  ) {
    this.crossProcess = bus.reach === "database";
  }

  /**
   * Listens to the wake and control channels. `control` aborts a run if it executes here and says
   * whether it did ("absent": not here; stay silent, its executor answers).
   */
  async start(handlers: {
    wake: () => void;
    control: (runId: string, action: CancelAction) => "accepted" | "refused" | "absent";
    followed: (runId: string) => void;
  }): Promise<void> {
    if (!this.crossProcess) return;
    const [wake, control, follows] = await Promise.all([
      this.bus.subscribe(WAKE_CHANNEL, (payload) => {
        const origin = (payload as { origin?: unknown })?.origin;
        if (origin === this.origin) return;
        if (typeof origin === "string") this.peers.heard(origin);
        handlers.wake();
      }),
      this.bus.subscribe(CONTROL_CHANNEL, (payload) => {
        const signal = payload as ControlSignal;
        if (signal?.origin === this.origin || typeof signal?.runId !== "string") return;
        if (typeof signal.origin === "string") this.peers.heard(signal.origin);
        const answer = handlers.control(signal.runId, signal.action === "rollback" ? "rollback" : "interrupt");
        if (answer !== "absent" && signal.action === "rollback")
          this.send(runChannel(signal.runId), { kind: "ack", origin: this.origin, accepted: answer === "accepted" });
      }),
      this.bus.subscribe(FOLLOW_CHANNEL, (payload) => {
        const signal = payload as { origin?: unknown; runId?: unknown } | null;
        if (signal?.origin === this.origin || typeof signal?.runId !== "string") return;
        if (typeof signal.origin === "string") this.peers.heard(signal.origin);
        handlers.followed(signal.runId);
      }),
    ]);
    const peers = await this.bus.subscribe(PEERS_CHANNEL, (payload) => {
      const signal = payload as Partial<PeerSignal> | null;
      if (typeof signal?.origin !== "string" || signal.origin === this.origin) return;
      this.peers.heard(signal.origin);
      if (signal.kind === "hello") this.send(PEERS_CHANNEL, { origin: this.origin, kind: "here" } satisfies PeerSignal);
    });
    // Said once every channel listens, so the answers (and any signal a peer sends on hearing it) arrive.
    await this.bus.publish(PEERS_CHANNEL, { origin: this.origin, kind: "hello" } satisfies PeerSignal).catch(this.onError);
    const heartbeat = setInterval(
      () => this.send(PEERS_CHANNEL, { origin: this.origin, kind: "here" } satisfies PeerSignal),
      PEER_HEARTBEAT_MS,
    );
    heartbeat.unref();
    this.stops.push(wake, control, follows, peers, () => clearInterval(heartbeat));
  }

  /**
   * Whether a signal that only informs (a wake-up, a run's events and end, a thread's events) has anyone
   * to reach, and whether a follow has anyone to ask: another engine heard from lately. Control requests
   * (a cancel must reach an executor even if its heartbeats were lost) and answers (ack) always go.
   */
  private get othersListen(): boolean {
    return this.crossProcess && this.peers.any();
  }

  /** Whether this engine knows itself the only one on its database: its signals reach others, and none was heard. */
  get alone(): boolean {
    return this.crossProcess && !this.peers.any();
  }

  /**
   * Tells every other process that this one streams `runId`, and resolves once the signal is out (sent
   * before the run is created, it reaches the listening connections before the run can be claimed).
   * Never throws: a lost signal leaves a stream elsewhere to its status checks.
   */
  async follow(runId: string): Promise<void> {
    if (!this.othersListen) return;
    await this.bus.publish(FOLLOW_CHANNEL, { origin: this.origin, runId }).catch(this.onError);
  }

  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  wake(): void {
    if (this.othersListen) this.send(WAKE_CHANNEL, { origin: this.origin });
  }

  event(runId: string, event: StreamEvent): void {
    if (this.othersListen) this.send(runChannel(runId), { kind: "event", origin: this.origin, event });
  }

  end(runId: string, end: RunEnd, options: { withValues: boolean }): void {
    if (!this.othersListen) return;
    // The run row and its result stay in this process: others read them where they need them.
    const { values, run: _run, result: _result, ...rest } = end;
    this.send(runChannel(runId), { kind: "end", origin: this.origin, end: options.withValues ? { ...rest, values } : rest });
  }

  stalled(runId: string, fault: StorageFault): void {
    if (this.othersListen) this.send(runChannel(runId), { kind: "stalled", origin: this.origin, fault });
  }

  /** A thread's protocol event, stored already: other processes deliver it to their streams of the thread. */
  threadEvent(threadId: string, event: unknown): void {
    if (this.othersListen) this.send(threadChannel(threadId), { origin: this.origin, event });
  }

  /** Protocol events of a thread appended by other engines; resolves once later ones will be delivered. */
  async onThread(threadId: string, handler: (event: unknown) => void): Promise<() => void> {
    if (!this.crossProcess) return () => undefined;
    try {
      return await this.bus.subscribe(threadChannel(threadId), (payload) => {
        const signal = payload as { origin?: unknown; event?: unknown } | null;
        if (signal && typeof signal === "object" && signal.origin !== this.origin) handler(signal.event);
      });
    } catch (error) {
      this.onError(error);
      return () => undefined;
    }
  }

  control(runId: string, action: CancelAction): void {
    if (this.crossProcess) this.send(CONTROL_CHANNEL, { origin: this.origin, runId, action } satisfies ControlSignal);
  }

  /**
   * Signals of a run published by other engines. Resolves once later ones will be delivered (at once,
   * with a no-op, when nobody else can publish).
   */
  async onRun(runId: string, handler: (signal: RunSignal) => void): Promise<() => void> {
    if (!this.crossProcess) return () => undefined;
    try {
      return await this.bus.subscribe(runChannel(runId), (payload) => {
        const signal = payload as RunSignal;
        if (signal && typeof signal === "object" && signal.origin !== this.origin) handler(signal);
      });
    } catch (error) {
      this.onError(error);
      return () => undefined;
    }
  }

  /**
   * Asks the process executing `runId` to roll it back and waits up to `timeoutMs` for its answer:
   * true when it will erase the run, false when it refused (too late) or nobody answered (no process
   * executes it, or the signal was lost).
   */
  async requestRollback(runId: string, timeoutMs: number): Promise<boolean> {
    if (!this.crossProcess) return false;
    let answer!: (accepted: boolean) => void;
    const answered = new Promise<boolean>((resolve) => (answer = resolve));
    const stop = await this.onRun(runId, (signal) => {
      if (signal.kind === "ack") answer(signal.accepted);
    });
    const timer = setTimeout(() => answer(false), timeoutMs);
    try {
      this.control(runId, "rollback");
      return await answered;
    } finally {
      clearTimeout(timer);
      stop();
    }
  }

  private send(channel: string, payload: unknown): void {
    this.bus.publish(channel, payload).catch(this.onError);
  }
}
