import { describe, expect, it } from "vitest";
import { checkpointIdOf, checkpointMark, eventsAfterCheckpoint } from "./checkpoint-marks.js";

const stored = [
  { id: "1", event: "metadata", data: { run_id: "r" } },
  { id: "2", event: "values", data: { n: 0 } },
  { id: "3", ...checkpointMark("c0") },
  { id: "4", event: "updates", data: { n: 1 } },
  { id: "5", event: "values", data: { n: 1 } },
  { id: "6", ...checkpointMark("c1") },
];

describe("eventsAfterCheckpoint", () => {
  it("sends the run's metadata, then what follows the checkpoint's mark; never a mark", () => {
    expect(eventsAfterCheckpoint(stored, "c0").map((e) => e.id)).toEqual(["1", "4", "5"]);
    expect(eventsAfterCheckpoint(stored, "c1").map((e) => e.id)).toEqual(["1"]);
  });

  it("sends the whole run for a checkpoint that is not one of its own, or none", () => {
    expect(eventsAfterCheckpoint(stored, "older").map((e) => e.id)).toEqual(["1", "2", "4", "5"]);
    expect(eventsAfterCheckpoint(stored).map((e) => e.id)).toEqual(["1", "2", "4", "5"]);
  });

  it("reads a full checkpoint payload's id from its config", () => {
    expect(checkpointIdOf({ config: { configurable: { checkpoint_id: "c9", checkpoint_ns: "" } } })).toBe("c9");
    expect(checkpointIdOf({ id: "envelope" })).toBeUndefined();
  });
});
