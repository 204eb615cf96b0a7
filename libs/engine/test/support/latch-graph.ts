import { Annotation, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";

const LatchState = Annotation.Root({
  answer: Annotation<string>(),
});

/** One thread's latch: its run's node waits on it until the test opens it. */
interface Latch {
  entered: Promise<void>;
  markEntered: () => void;
  opened: Promise<void>;
  open: () => void;
}

/**
 * A graph whose single node waits, per thread, until the test opens that thread's latch, then answers
 * "done". (An abort of the run ends its execution at once whatever the node does: LangGraph stops
 * waiting for it.) Lets a test put a cancel, a shutdown or a crash at a chosen point of a run's life.
 */
export class LatchGraphs {
  private readonly latches = new Map<string, Latch>();

  readonly graph = new StateGraph(LatchState)
    .addNode("wait", async (_state, config: LangGraphRunnableConfig) => {
      const latch = this.latch(String(config.configurable?.thread_id));
      latch.markEntered();
      await latch.opened;
      return { answer: "done" };
    })
    .addEdge("__start__", "wait")
    .compile();

  /** Resolves once a run of the thread is inside the node. */
  entered(threadId: string): Promise<void> {
    return this.latch(threadId).entered;
  }

  open(threadId: string): void {
    this.latch(threadId).open();
  }

  private latch(threadId: string): Latch {
    let latch = this.latches.get(threadId);
    if (!latch) {
      let markEntered!: () => void;
      let open!: () => void;
      const entered = new Promise<void>((resolve) => (markEntered = resolve));
      const opened = new Promise<void>((resolve) => (open = resolve));
      latch = { entered, markEntered, opened, open };
      this.latches.set(threadId, latch);
    }
    return latch;
  }
}
