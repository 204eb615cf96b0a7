// The @a2a-js/sdk reference server the bench compares our A2A adapter with: the SDK's own
// DefaultRequestHandler over an InMemoryTaskStore, behind express, with an echo AgentExecutor.
// JavaScript, not TypeScript: it is copied with a2a-peer-app.mjs into the peer install
// (tools/bench/.peers/a2a-reference) and run there with plain node, so it resolves that install's express and
// SDK, not the repository's.
//
//   node a2a-reference-server.mjs [port]     (0 or nothing: a free port; prints "listening on <url>")
import { publishAnswer, publishSubmitted, serveA2A, textOf } from "./a2a-peer-app.mjs";

/** Answers "echo: <text>" and completes the task, as examples/src/echo.ts does over our A2A adapter. */
class EchoExecutor {
  async execute(context, eventBus) {
    publishSubmitted(context, eventBus);
    publishAnswer(context, eventBus, `echo: ${textOf(context.userMessage)}`);
  }

  async cancelTask() {}
}

serveA2A(new EchoExecutor(), Number(process.argv[2] ?? 0));
