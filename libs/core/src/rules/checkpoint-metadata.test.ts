import { describe, expect, it } from "vitest";
import { checkpointMetadata } from "./checkpoint-metadata.js";

describe("checkpointMetadata", () => {
  it("merges scalar configurable keys, the config's metadata, the run id, then LangGraph's own metadata", () => {
    const saved = checkpointMetadata(
      {
        configurable: {
          thread_id: "t",
          checkpoint_ns: "",
          checkpoint_id: "c",
          __pregel_task: "internal",
          run_id: "r1",
          graph_id: "agent",
          user_id: "u",
          limit: 3,
          langgraph_auth_user: { identity: "u" },
        },
        metadata: { run_metadata: "x", graph_id: "from-metadata" },
      },
      { source: "loop", step: 1, parents: {} },
    );
    expect(saved).toEqual({
      graph_id: "from-metadata",
      user_id: "u",
      limit: 3,
      run_metadata: "x",
      run_id: "r1",
      source: "loop",
      step: 1,
      parents: {},
    });
  });

  it("takes run_id from the config's metadata when configurable has none, and lets LangGraph's metadata win", () => {
    expect(checkpointMetadata({ metadata: { run_id: "r2" } }, { source: "update", step: 2, parents: {} })).toEqual({
      run_id: "r2",
      source: "update",
      step: 2,
      parents: {},
    });
    expect(checkpointMetadata({ configurable: { step: 9 } }, { step: 1 })).toEqual({ step: 1 });
  });
});
