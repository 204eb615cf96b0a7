import { describe, expect, it } from "vitest";
import { turnValues } from "./turn-values.js";

const human = (content: string) => ({ type: "human", content });
const ai = (content: string) => ({ type: "ai", content });

describe("turnValues", () => {
  it("cuts messages to the last human message on, and keeps every other key", () => {
    const values = { messages: [human("one"), ai("echo: one"), human("two"), ai("echo: two")], topic: "t" };
    expect(turnValues(values)).toEqual({ messages: [human("two"), ai("echo: two")], topic: "t" });
    expect(values.messages).toHaveLength(4); // the run's values are not changed
  });

  it("a resumed turn keeps the turn it resumes: from that turn's human message", () => {
    const values = { messages: [human("one"), ai("a"), human("book it"), ai("asks"), { type: "tool", content: "ok" }, ai("booked")] };
    expect(turnValues(values).messages).toEqual(values.messages.slice(2));
  });

  it("knows human messages as instances, OpenAI-style dicts and LangChain's serialized form", () => {
    const instance = { getType: () => "human", content: "i" };
    expect(turnValues({ messages: [ai("x"), instance, ai("y")] }).messages).toEqual([instance, ai("y")]);
    expect(turnValues({ messages: [ai("x"), { role: "user", content: "u" }] }).messages).toEqual([{ role: "user", content: "u" }]);
    const serialized = { lc: 1, type: "constructor", id: ["langchain_core", "messages", "HumanMessage"], kwargs: { content: "s" } };
    expect(turnValues({ messages: [ai("x"), serialized, ai("z")] }).messages).toEqual([serialized, ai("z")]);
  });

  it("keeps values whole when there is no messages list or no human message in it", () => {
    const noList = { answer: 42 };
    expect(turnValues(noList)).toBe(noList);
    const noHuman = { messages: [ai("a"), ai("b")] };
    expect(turnValues(noHuman)).toBe(noHuman);
    const single = { messages: [human("only")] };
    expect(turnValues(single)).toBe(single);
  });
});
