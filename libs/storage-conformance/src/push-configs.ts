import { describe, expect, it } from "vitest";
import type { NewPushConfig, PushConfig, PushConfigRepo, Storage } from "@agent-server/core";
import { ISO_MS, newRun, sleep, uid, type Harness } from "./harness.js";

/** Every first-party driver has push configs (A2A push needs them); a driver without declares `{ pushConfigs: false }`. */
export function pushConfigs(s: Storage): PushConfigRepo {
  if (!s.pushConfigs)
    throw new Error(
      `driver "${s.kind}" lacks Storage.pushConfigs: implement it, or declare { pushConfigs: false } to describeStorageConformance`,
    );
  return s.pushConfigs;
}

function config(run_id: string, config_id = uid(), overrides: Partial<NewPushConfig> = {}): NewPushConfig {
  return {
    run_id,
    config_id,
    url: `https://hooks.example/${config_id}`,
    token: "tok",
    authentication: { scheme: "Bearer", credentials: "secret" },
    ...overrides,
  };
}

/** Oldest first: created_at, then config_id. */
function sortedByCreation(configs: PushConfig[]): PushConfig[] {
  const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return [...configs].sort((a, b) => compare(a.created_at, b.created_at) || compare(a.config_id, b.config_id));
}

export function describePushConfigs(h: Harness): void {
  describe("A2A push configs", () => {
    it("Storage has pushConfigs (the driver declares them)", async () => {
      const s = await h.open();
      expect(typeof s.pushConfigs?.put).toBe("function");
    });

    it("RunRepo.settle says whether the run's task has push configs, for its first run and its continuations", async () => {
      const s = await h.open();
      const repo = pushConfigs(s);
      if (!s.runs.settle) return;
      const settle = s.runs.settle.bind(s.runs);
      const past = new Date(Date.now() - 1000).toISOString();
      const plain = await newRun(s, { status: "success" });
      const root = await s.runs.create(
        { run_id: uid(), thread_id: plain.thread_id, assistant_id: plain.assistant_id, created_at: past },
        { internal: { captureResult: true } },
      );
      /** Claims `run` (the only pending one) and settles it; the answer's `pushConfigs` (absent: not said). */
      const settled = async (run_id: string) => {
        expect((await s.runs.claimNext({ owner: "w1", leaseMs: 60_000 }))?.run.run_id).toBe(run_id);
        const out = await settle(run_id, "success", { from: ["running"], owner: "w1", releaseLease: true });
        expect(out?.run.status).toBe("success");
        return out!.pushConfigs;
      };
      const continuation = async () =>
        (
          await s.runs.create(
            { run_id: uid(), thread_id: root.thread_id, assistant_id: root.assistant_id, created_at: past },
            { internal: { captureResult: true, taskId: root.run_id } },
          )
        ).run_id;
      expect(await settled(root.run_id)).not.toBe(true);
      // A config of the task (registered with a continuation, as a SendMessage carrying one does).
      const first = await continuation();
      expect(await repo.put(config(root.run_id, "c1"), { run: first })).toMatchObject({ run_id: root.run_id, config_id: "c1" });
      expect(await settled(first)).not.toBe(false);
      // A later continuation without a config of its own: the task's config counts.
      expect(await settled(await continuation())).not.toBe(false);
      await repo.delete(root.run_id, "c1");
      expect(await settled(await continuation())).not.toBe(true);
    });

    it("put/get/list/delete round trip; nulls are kept; unknown ids read as null, [] and false", async () => {
      const s = await h.open();
      const repo = pushConfigs(s);
      const run = await newRun(s);
      const input = config(run.run_id, "cfg-1");
      const stored = await repo.put(input);
      expect(stored).toEqual({ ...input, created_at: expect.stringMatching(ISO_MS) });
      expect(Object.keys(stored!).sort()).toEqual(["authentication", "config_id", "created_at", "run_id", "token", "url"]);
      expect(await repo.get(run.run_id, "cfg-1")).toEqual(stored);
      const bare = await repo.put(config(run.run_id, "cfg-2", { token: null, authentication: null }));
      expect(bare).toMatchObject({ token: null, authentication: null });
      expect(await repo.get(run.run_id, "cfg-2")).toEqual(bare);
      expect(await repo.list(run.run_id)).toEqual(sortedByCreation([stored!, bare!]));

      expect(await repo.get(run.run_id, "nope")).toBeNull();
      expect(await repo.get(uid(), "cfg-1")).toBeNull();
      expect(await repo.list(uid())).toEqual([]);
      expect(await repo.delete(run.run_id, "nope")).toBe(false);
      expect(await repo.delete(uid(), "cfg-1")).toBe(false);

      expect(await repo.delete(run.run_id, "cfg-1")).toBe(true);
      expect(await repo.delete(run.run_id, "cfg-1")).toBe(false);
      expect(await repo.get(run.run_id, "cfg-1")).toBeNull();
      expect(await repo.list(run.run_id)).toEqual([bare]);
      expect(await repo.delete(run.run_id, "cfg-2")).toBe(true);
      expect(await repo.list(run.run_id)).toEqual([]);
      // The run itself is untouched.
      expect(await s.runs.get(run.run_id)).toEqual(run);
    });

    it("put for an unknown run returns null and stores nothing, not even for a run created later with that id", async () => {
      const s = await h.open();
      const repo = pushConfigs(s);
      const ghost = uid();
      expect(await repo.put(config(ghost, "cfg"))).toBeNull();
      expect(await repo.get(ghost, "cfg")).toBeNull();
      expect(await repo.list(ghost)).toEqual([]);
      const run = await newRun(s);
      await s.runs.create({ run_id: ghost, thread_id: run.thread_id, assistant_id: run.assistant_id });
      expect(await repo.list(ghost)).toEqual([]);
      const deleted = await newRun(s);
      await s.runs.delete(deleted.run_id);
      expect(await repo.put(config(deleted.run_id))).toBeNull();
      expect(await repo.list(deleted.run_id)).toEqual([]);
    });

    it("put with an existing (run_id, config_id) replaces every field but keeps created_at", async () => {
      const s = await h.open();
      const repo = pushConfigs(s);
      const run = await newRun(s);
      const first = await repo.put(config(run.run_id, "same"));
      await sleep(5);
      const replaced = await repo.put(
        config(run.run_id, "same", {
          url: "https://other.example/x",
          token: null,
          authentication: { scheme: "Basic", credentials: "dTpw" },
        }),
      );
      expect(replaced).toEqual({
        run_id: run.run_id,
        config_id: "same",
        url: "https://other.example/x",
        token: null,
        authentication: { scheme: "Basic", credentials: "dTpw" },
        created_at: first!.created_at,
      });
      expect(await repo.list(run.run_id)).toEqual([replaced]);
      const again = await repo.put(config(run.run_id, "same", { authentication: null }));
      expect(again).toMatchObject({ authentication: null, token: "tok", created_at: first!.created_at });
      expect(await repo.get(run.run_id, "same")).toEqual(again);
    });

    it("list is oldest first (created_at, then config_id), per run", async () => {
      const s = await h.open();
      const repo = pushConfigs(s);
      const run = await newRun(s);
      const other = await newRun(s, { thread_id: run.thread_id, assistant_id: run.assistant_id });
      const z = await repo.put(config(run.run_id, "z"));
      await sleep(5);
      const a = await repo.put(config(run.run_id, "a"));
      // Same config id on another run: independent.
      const otherA = await repo.put(config(other.run_id, "a", { url: "https://other.example/" }));
      const burst: PushConfig[] = [];
      for (const id of ["m", "c", "k", "b"]) burst.push((await repo.put(config(run.run_id, id)))!);
      const listed = await repo.list(run.run_id);
      expect(listed.slice(0, 2)).toEqual([z, a]);
      expect(listed).toEqual(sortedByCreation([z!, a!, ...burst]));
      // Replacing "z" keeps its place.
      await sleep(5);
      await repo.put(config(run.run_id, "z", { url: "https://moved.example/" }));
      expect((await repo.list(run.run_id)).map((c) => c.config_id)).toEqual(listed.map((c) => c.config_id));
      expect(await repo.list(other.run_id)).toEqual([otherA]);
      expect(await repo.delete(other.run_id, "a")).toBe(true);
      expect(await repo.get(run.run_id, "a")).toEqual(a);
    });

    it("values are plain JSON copies: unicode survives, mutating inputs or outputs changes nothing stored", async () => {
      const s = await h.open();
      const repo = pushConfigs(s);
      const run = await newRun(s);
      const input = config(run.run_id, "ü-😀-\u202E", {
        url: "https://hooks.example/p?q=ä&x=\"'",
        token: "tök-✓",
        authentication: { scheme: "Bearer", credentials: '🔑\n"x"' },
      });
      const stored = await repo.put(input);
      expect(stored).toMatchObject({ ...input });
      input.authentication!.credentials = "mutated";
      stored!.authentication!.scheme = "mutated";
      const read = await repo.get(run.run_id, "ü-😀-\u202E");
      expect(read!.authentication).toEqual({ scheme: "Bearer", credentials: '🔑\n"x"' });
      expect(read!.token).toBe("tök-✓");
      read!.authentication!.credentials = "mutated-output";
      expect((await repo.list(run.run_id))[0].authentication).toEqual({ scheme: "Bearer", credentials: '🔑\n"x"' });
    });

    it("configs go with their run: run delete, rollback, thread delete, prune delete, truncate of runs and threads; assistant delete keeps them", async () => {
      const s = await h.open();
      const repo = pushConfigs(s);
      const viaRun = await newRun(s);
      const viaThread = await newRun(s);
      const viaPrune = await newRun(s);
      const viaRollback = await newRun(s);
      const viaAssistant = await newRun(s);
      const survivor = await newRun(s);
      for (const r of [viaRun, viaThread, viaPrune, viaRollback, viaAssistant, survivor]) await repo.put(config(r.run_id, "cfg"));
      await s.runs.delete(viaRun.run_id);
      await s.runs.delete(viaRollback.run_id, { checkpoints: true });
      await s.threads.delete(viaThread.thread_id);
      expect(await s.threads.prune([viaPrune.thread_id], "delete")).toBe(1);
      await s.assistants.delete(viaAssistant.assistant_id);
      expect(await s.threads.prune([survivor.thread_id], "keep_latest")).toBe(1);
      for (const r of [viaRun, viaThread, viaPrune, viaRollback]) {
        expect(await repo.list(r.run_id)).toEqual([]);
        expect(await repo.get(r.run_id, "cfg")).toBeNull();
      }
      expect(await repo.list(survivor.run_id)).toHaveLength(1);
      // Assistant delete erases no run (core's assistant cascade): the run keeps its configs.
      expect(await repo.list(viaAssistant.run_id)).toHaveLength(1);
      // Re-created ids start without configs.
      for (const r of [viaRun, viaThread, viaPrune]) {
        const thread = (await s.threads.get(r.thread_id)) ?? (await s.threads.create({ thread_id: r.thread_id }));
        await s.runs.create({ run_id: r.run_id, thread_id: thread.thread_id, assistant_id: survivor.assistant_id });
        expect(await repo.list(r.run_id)).toEqual([]);
      }

      await s.truncate({ runs: true });
      expect(await repo.list(survivor.run_id)).toEqual([]);
      const again = await s.runs.create({ run_id: survivor.run_id, thread_id: survivor.thread_id, assistant_id: survivor.assistant_id });
      expect(await repo.list(again.run_id)).toEqual([]);
      await repo.put(config(again.run_id, "cfg"));
      await s.truncate({ threads: true });
      expect(await repo.list(again.run_id)).toEqual([]);
      expect(await repo.delete(again.run_id, "cfg")).toBe(false);
    });

    it("thread copy does not copy push configs; the original's stay", async () => {
      const s = await h.open();
      const repo = pushConfigs(s);
      const run = await newRun(s, { status: "success" });
      const stored = await repo.put(config(run.run_id, "cfg"));
      const copyId = uid();
      expect(await s.threads.copy(run.thread_id, copyId)).not.toBeNull();
      const [copied] = await s.runs.search({ thread_id: copyId });
      expect(copied.run_id).not.toBe(run.run_id);
      expect(await repo.list(copied.run_id)).toEqual([]);
      expect(await repo.list(run.run_id)).toEqual([stored]);
      await s.threads.delete(copyId);
      expect(await repo.list(run.run_id)).toEqual([stored]);
    });

    if (h.hasSibling)
      it("a sibling driver sees configs written by another", async () => {
        const s = await h.open();
        const other = await h.sibling(s);
        const run = await newRun(s);
        const stored = await pushConfigs(other).put(config(run.run_id, "cfg"));
        expect(await pushConfigs(s).get(run.run_id, "cfg")).toEqual(stored);
        expect(await pushConfigs(s).delete(run.run_id, "cfg")).toBe(true);
        expect(await pushConfigs(other).list(run.run_id)).toEqual([]);
      });
  });
}
