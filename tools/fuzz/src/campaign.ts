import fc from "fast-check";
import { sendGrpc } from "./grpc-exchange.js";
import { send, type FuzzRequest, type FuzzResponse } from "./http-exchange.js";
import { answerViolations, bodyLine, refused, shapeWarning, type Violation } from "./oracles.js";
import type { FuzzTarget } from "./request-parts.js";
import { attributableToRequest, countChanges, RowCounter } from "./row-counts.js";
import type { ServerUnderTest } from "./server-under-test.js";
import { ensureSystemAssistants, intact, resourceQueries, secretIds, seedUser, type World } from "./world.js";

export interface CampaignOptions {
  /** Generated requests per target (times the target's weight). */
  runsPerTarget: number;
  seed: number;
  /** Stop generating once this much time has gone (the budget is shared evenly among the targets left). */
  timeBudgetMs: number;
  requestTimeoutMs: number;
  /** Progress lines (one per target). */
  log?: (line: string) => void;
}

/** Where one generated request comes from: replay it with `fc.check(property, { seed, path })` (see run.ts `FUZZ_REPLAY`). */
export interface Origin {
  target: string;
  seed: number;
  path: string;
  /** A request of a fixed sweep (`Campaign.sweep`), not generated: `path` is its index. */
  sweep?: boolean;
}

/** One distinct failure: route + oracle + status + first line of the body (ids normalized). */
export interface FailureGroup {
  key: string;
  route: string;
  oracle: Violation["oracle"] | "shape";
  status: number | string;
  detail: string;
  count: number;
  /** Up to five distinct input classes that produced it. */
  inputClasses: string[];
  /** The shortest request seen, for the reproduction. */
  example: { request: FuzzRequest; response: FuzzResponse; origin: Origin };
}

export interface CampaignReport {
  server: string;
  seed: number;
  runsPerTarget: number;
  durationMs: number;
  requests: Record<string, number>;
  /** Requests sent per target (a target the time budget cut off has none). */
  perTarget: Record<string, number>;
  statuses: Record<string, Record<string, number>>;
  failures: FailureGroup[];
  /** Error-shape deviations (4xx without a JSON `detail`): reported, not asserted. */
  warnings: FailureGroup[];
  /** Requests answered after the time limit (a hang is not a failure by itself: joins on delayed runs wait). */
  timeouts: Record<string, number>;
  /** Refused requests whose row-count change could have been the server's background work. */
  inconclusiveWrites: number;
}

/** Per-target seed: each target replays alone from the campaign seed. */
export function targetSeed(seed: number, name: string): number {
  let hash = seed | 0;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

/**
 * Drives every target with generated requests and applies the oracles to each exchange, collecting every
 * distinct failure instead of stopping at the first (the property always holds; violations are recorded).
 */
export class Campaign {
  private counter: RowCounter;
  private readonly groups = new Map<string, FailureGroup>();
  private readonly report: CampaignReport;

  constructor(
    private readonly server: ServerUnderTest,
    private readonly world: World,
    private readonly options: CampaignOptions,
  ) {
    this.counter = new RowCounter(server.dbFile);
    this.report = {
      server: server.auth ? "dev on SQLite, x-user owner auth" : "dev on SQLite, no auth",
      seed: options.seed,
      runsPerTarget: options.runsPerTarget,
      durationMs: 0,
      requests: {},
      perTarget: {},
      statuses: {},
      failures: [],
      warnings: [],
      timeouts: {},
      inconclusiveWrites: 0,
    };
  }

  async run(targets: FuzzTarget[]): Promise<CampaignReport> {
    const started = Date.now();
    let baseline = this.victimView();
    for (const [index, target] of targets.entries()) {
      const remaining = this.options.timeBudgetMs - (Date.now() - started);
      if (remaining <= 0) break;
      const seed = targetSeed(this.options.seed, target.name);
      const batchStarted = Date.now();
      let path = 0;
      let last: FuzzRequest | undefined;
      await fc.check(
        fc.asyncProperty(target.arbitrary, async (request) => {
          last = request;
          await this.exchange(request, { target: target.name, seed, path: String(path++) });
          return true;
        }),
        {
          seed,
          numRuns: Math.max(1, Math.round(this.options.runsPerTarget * (target.weight ?? 1))),
          interruptAfterTimeLimit: Math.max(1_000, remaining / (targets.length - index)),
          markInterruptAsFailure: false,
        },
      );
      this.report.perTarget[target.name] = path;
      this.options.log?.(`${target.name}: ${path} requests in ${Date.now() - batchStarted} ms`);
      try {
        baseline = await this.afterBatch(target.name, last, baseline);
      } catch (error) {
        // The next batches run on whatever world is left; the campaign goes on.
        this.options.log?.(`after ${target.name}: could not restore the seeded world: ${(error as Error).message}`);
      }
    }
    return this.finish(started);
  }

  /** Sends fixed `requests` (in order) through the same oracles, then checks the world as after a batch. */
  async sweep(name: string, requests: FuzzRequest[]): Promise<CampaignReport> {
    const started = Date.now();
    const baseline = this.victimView();
    for (const [index, request] of requests.entries())
      await this.exchange(request, { target: name, seed: 0, path: String(index), sweep: true });
    this.report.perTarget[name] = requests.length;
    await this.afterBatch(name, requests.at(-1), baseline);
    return this.finish(started);
  }

  private finish(started: number): CampaignReport {
    this.report.durationMs = Date.now() - started;
    this.report.failures = [...this.groups.values()].filter((g) => g.oracle !== "shape");
    this.report.warnings = [...this.groups.values()].filter((g) => g.oracle === "shape");
    return this.report;
  }

  /** Sends one request and applies every per-request oracle; returns the violations (also recorded). */
  async exchange(request: FuzzRequest, origin: Origin): Promise<Violation[]> {
    await this.counter.quiet(2_000);
    const before = this.counter.counts();
    const backgroundBefore = this.counter.background();
    const mark = this.server.logMark();
    const response = request.grpc
      ? await sendGrpc(this.server.grpcTarget, request, this.options.requestTimeoutMs)
      : await send(this.server.url, request, this.options.requestTimeoutMs);
    const status = response.timedOut ? "timeout" : response.status === 0 ? "no response" : String(response.status);
    this.tally(request.route, status);
    if (response.timedOut) this.report.timeouts[request.route] = (this.report.timeouts[request.route] ?? 0) + 1;

    const violations = answerViolations(request, response, secretIds(this.world));
    // A generic 500 text hides the cause: the server's own log line tells the bugs apart.
    for (const violation of violations) {
      if (violation.oracle === "5xx" || violation.oracle === "JSON-RPC -32603" || violation.oracle === "protocol unknown_error") {
        const logged = this.server.errorSince(mark);
        if (logged) violation.detail += ` [server log: ${logged}]`;
      }
    }
    if (refused(request, response)) {
      await this.counter.quiet(2_000);
      const after = this.counter.counts();
      const changes = countChanges(before, after);
      if (changes.length > 0) {
        if (attributableToRequest(before, after, backgroundBefore, this.counter.background())) {
          violations.push({ oracle: "partial write", detail: changes.map((c) => c.split(":")[0]).join(", ") });
        } else {
          this.report.inconclusiveWrites++;
        }
      }
    }
    for (const violation of violations) this.record(violation, request, response, origin);
    const shape = shapeWarning(request, response);
    if (shape) this.record({ oracle: "shape" as Violation["oracle"], detail: shape }, request, response, origin);
    return violations;
  }

  /** After a target's batch: the server is up (restarted if not), the victim untouched, both worlds still there. */
  private async afterBatch(target: string, last: FuzzRequest | undefined, baseline: string): Promise<string> {
    const down = await this.server.down();
    if (down) {
      const lastRequest = last ?? { method: "", path: "", headers: {}, route: target, label: "" };
      this.record({ oracle: "server down", detail: down.slice(0, 160) }, lastRequest, emptyResponse, { target, seed: 0, path: "" });
      await this.server.restart();
      this.counter.close();
      this.counter = new RowCounter(this.server.dbFile);
    }
    await this.counter.quiet(2_000);
    await ensureSystemAssistants(this.server.url, this.world.mine.user);
    if (!intact(this.counter.rows(resourceQueries(this.world.mine))))
      this.world.mine = await seedUser(this.server.url, this.world.mine.user);
    const view = this.victimView();
    if (view === baseline) return baseline;
    if (this.world.auth) {
      const request: FuzzRequest = {
        method: "",
        path: `(the ${target} batch)`,
        headers: {},
        route: target,
        label: "any request of the batch",
      };
      this.record({ oracle: "victim changed", detail: describeChange(baseline, view) }, request, emptyResponse, {
        target,
        seed: 0,
        path: "",
      });
    }
    if (!intact(JSON.parse(view) as Record<string, unknown[]>)) this.world.other = await seedUser(this.server.url, this.world.other.user);
    return this.victimView();
  }

  private victimView(): string {
    return JSON.stringify(this.counter.rows(resourceQueries(this.world.other)));
  }

  private tally(route: string, status: string): void {
    this.report.requests[route] = (this.report.requests[route] ?? 0) + 1;
    const histogram = (this.report.statuses[route] ??= {});
    histogram[status] = (histogram[status] ?? 0) + 1;
  }

  private record(violation: Violation, request: FuzzRequest, response: FuzzResponse, origin: Origin): void {
    const status = response.timedOut ? "timeout" : response.status;
    const detail = bodyLine(violation.detail || response.body);
    const key = `${request.route} | ${violation.oracle} | ${status} | ${detail}`;
    const group = this.groups.get(key);
    if (!group) {
      this.groups.set(key, {
        key,
        route: request.route,
        oracle: violation.oracle,
        status,
        detail,
        count: 1,
        inputClasses: [request.label],
        example: { request, response, origin },
      });
      return;
    }
    group.count++;
    if (group.inputClasses.length < 5 && !group.inputClasses.includes(request.label)) group.inputClasses.push(request.label);
    if (size(request) < size(group.example.request)) group.example = { request, response, origin };
  }

  close(): void {
    this.counter.close();
  }
}

const emptyResponse: FuzzResponse = { status: 0, contentType: "", body: "", timedOut: false };

function size(request: FuzzRequest): number {
  return request.path.length + (request.body?.length ?? 0);
}

/** Which of the victim's rows differ (assistant, thread, runs, checkpoints, cron, store), and how. */
function describeChange(before: string, after: string): string {
  const a = JSON.parse(before) as Record<string, unknown[]>;
  const b = JSON.parse(after) as Record<string, unknown[]>;
  const parts = Object.keys(a).filter((key) => JSON.stringify(a[key]) !== JSON.stringify(b[key]));
  return parts
    .map((part) => {
      if (b[part]!.length === 0) return `${part} deleted`;
      if (b[part]!.length !== a[part]!.length) return `${part}: ${a[part]!.length}→${b[part]!.length} rows`;
      const [was, is] = [a[part]![0] as Record<string, unknown>, b[part]![0] as Record<string, unknown>];
      return `${part} changed (${Object.keys(is)
        .filter((k) => JSON.stringify(was[k]) !== JSON.stringify(is[k]))
        .join(", ")})`;
    })
    .join("; ");
}
