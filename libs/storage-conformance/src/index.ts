import { describe } from "vitest";
import { describeAssistants } from "./assistants.js";
import { describeCancelReasons } from "./cancel-reasons.js";
import { describeCheckpoints } from "./checkpoints.js";
import { describeClaimOnCreate, describeClaimOnCreateAbsent } from "./claim-on-create.js";
import { describeCreateWithThread, describeCreateWithThreadAbsent } from "./create-with-thread.js";
import { describeCrons } from "./crons.js";
import { describeDeliveries } from "./deliveries.js";
import { describeErasure } from "./erasure.js";
import { describeEvents } from "./events.js";
import { createHarness, type ConformanceFactory } from "./harness.js";
import { describePushConfigsAbsent, describeResultsAbsent, describeValuesAtAbsent, type ConformanceOptions } from "./optional.js";
import { describePushConfigs } from "./push-configs.js";
import { describeLeaseOwnership } from "./lease-ownership.js";
import { describeQueue } from "./queue.js";
import { describeReopen } from "./reopen.js";
import { describeResultLifecycle } from "./results-lifecycle.js";
import { describeResults } from "./results.js";
import { describeSettle } from "./settle.js";
import { describeRunErrors } from "./run-errors.js";
import { describeRuns } from "./runs.js";
import { describeSignals, describeSignalsAbsent } from "./signals.js";
import { describeStorage } from "./storage.js";
import { describeStore } from "./store.js";
import { describeTasks } from "./tasks.js";
import { describeThreadLock, describeThreadLockAbsent } from "./thread-lock.js";
import { describeThreads } from "./threads.js";
import { describeThreadValues } from "./thread-values.js";
import { describeTtl, describeTtlAbsent } from "./ttl.js";
import { describeVectorSearch, describeVectorSearchAbsent } from "./vector-search.js";
import { describeWireJson } from "./wire-json.js";

export type { ConformanceFactory } from "./harness.js";
export type { ConformanceOptions } from "./optional.js";

/**
 * The storage contract suite. Call it at the top level of a driver's test file:
 *
 *   describeStorageConformance("sqlite", { create, sibling, reopen }, { results: true, pushConfigs: true, threadLock: true, signals: "process", ttl: true, vectors: true, valuesAt: true, claimOnCreate: true });
 *
 * Every test opens fresh drivers through the factory and the suite closes all of them afterwards.
 * Tests that need `sibling` or `reopen` are registered only when the factory provides them; races that
 * can use a sibling run within one driver otherwise. `options` states which optional parts of the
 * contract the driver has: their checks run only then, and nowhere else is a check skipped because a
 * method is missing.
 */
export function describeStorageConformance(name: string, factory: ConformanceFactory, options: ConformanceOptions): void {
  describe(`storage conformance: ${name}`, () => {
    const h = createHarness(factory);
    describeStorage(h);
    describeAssistants(h);
    describeThreads(h);
    if (options.valuesAt) describeThreadValues(h);
    else describeValuesAtAbsent(h);
    describeRuns(h);
    describeRunErrors(h);
    describeCancelReasons(h);
    describeQueue(h);
    describeLeaseOwnership(h);
    if (options.claimOnCreate) describeClaimOnCreate(h);
    else describeClaimOnCreateAbsent(h);
    if (options.createWithThread === false) describeCreateWithThreadAbsent(h);
    else describeCreateWithThread(h, options.createWithThread);
    if (options.results) {
      describeResults(h);
      describeResultLifecycle(h);
      describeSettle(h);
    } else describeResultsAbsent(h);
    describeTasks(h);
    if (options.pushConfigs) describePushConfigs(h);
    else describePushConfigsAbsent(h);
    if (options.threadLock) describeThreadLock(h);
    else describeThreadLockAbsent(h);
    describeStore(h);
    if (options.ttl) describeTtl(h);
    else describeTtlAbsent(h);
    if (options.vectors) describeVectorSearch(h);
    else describeVectorSearchAbsent(h);
    describeCrons(h);
    describeDeliveries(h);
    describeEvents(h);
    describeCheckpoints(h);
    describeErasure(h);
    describeWireJson(h);
    if (options.signals) describeSignals(h, options.signals);
    else describeSignalsAbsent(h);
    if (h.hasReopen) describeReopen(h);
  });
}

/**
 * The `vectors` part alone, for a driver's second way of scoring (SQLite's JavaScript scan beside
 * sqlite-vec): the same checks must pass whichever computes the ranking.
 */
export function describeVectorSearchConformance(name: string, factory: ConformanceFactory): void {
  describe(`storage conformance (vectors): ${name}`, () => describeVectorSearch(createHarness(factory)));
}
