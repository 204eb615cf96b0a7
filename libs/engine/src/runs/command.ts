import { Command, Send } from "@langchain/langgraph";
import type { RunCommand } from "./run-request.js";

/** The Agent Protocol's `command` as a LangGraph `Command` (`goto` targets with input become `Send`s). */
export function toCommand(command: RunCommand): Command {
  const goto = command.goto == null ? undefined : [command.goto].flat().map((g) => (typeof g === "string" ? g : new Send(g.node, g.input)));
  return new Command({
    resume: command.resume,
    update: command.update ?? undefined,
    goto: goto && goto.length === 1 ? goto[0] : goto,
  } as never);
}
