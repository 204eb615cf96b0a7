/** The four schemas read per graph, as suffixes of the type aliases that carry them. */
export const KINDS = { state: "State", input: "Input", output: "Output", config: "Config" } as const;

/** One graph type to analyse: the alias name prefix, and a type expression for the graph value. */
export interface AnalysedGraph {
  prefix: string;
  typeExpression: string;
}

/**
 * A module of type aliases that turn graph values' TypeScript types into the four plain object types
 * whose JSON schemas the API reports. It is placed beside the graph module (so its imports resolve from
 * the graph's own project) and exists only in the compiler host, never on disk.
 *
 * - a value may be a graph, a StateGraph (compiled), a promise of either, or a factory of either;
 *   anything else (a node function proposed as a subgraph) gives `any`, which yields no schema;
 * - state: the compiled graph's input type (the update a client sends, all keys optional);
 * - input/output/config: the builder's input (update), output (full state) and config definitions;
 * - message-like values are reported as `BaseMessage` (their union of classes has no useful schema),
 *   `Overwrite` wrappers are dropped, and nesting stops at three levels (state types can be recursive).
 */
export function analysisSource(graphs: AnalysedGraph[]): string {
  const aliases = graphs.map(
    ({ prefix, typeExpression }) => `
type ${prefix}Graph = GraphOf<${typeExpression}>;
export type ${prefix}${KINDS.state} = IfGraph<${prefix}Graph, Plain<RunInputOf<${prefix}Graph>>>;
export type ${prefix}${KINDS.input} = IfGraph<${prefix}Graph, Plain<Known<BuilderTypes<${prefix}Graph>["input"]>>>;
export type ${prefix}${KINDS.output} = IfGraph<${prefix}Graph, Plain<Known<BuilderTypes<${prefix}Graph>["output"]>>>;
export type ${prefix}${KINDS.config} = IfGraph<${prefix}Graph, Plain<Known<BuilderTypes<${prefix}Graph>["config"]>>>;`,
  );
  return `${HELPERS}\n${aliases.join("\n")}\n`;
}

const HELPERS = `
import type { BaseMessage } from "@langchain/core/messages";
import type { StateDefinition, StateType, UpdateType } from "@langchain/langgraph";

type Settled<T> = T extends (...args: any[]) => infer R ? Awaited<R> : Awaited<T>;
type Built<T> = T extends { compile(...args: any[]): infer C } ? C : T extends { lg_is_pregel: boolean } ? T : never;
type GraphOf<T> = Built<Settled<T>>;
type IfGraph<G, T> = [G] extends [never] ? any : T;

type IsAny<T> = 0 extends 1 & T ? true : false;
type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
type Unwrapped<T> = Exclude<T, { __overwrite__: any }>;
type AsMessage<T> = T extends BaseMessage ? BaseMessage : never;
type AsMessages<T> = T extends Array<infer E> ? (Same<AsMessage<E>, BaseMessage> extends true ? BaseMessage[] : never) : never;
type Plain<T, Depth extends 0[] = []> = Depth extends [0, 0, 0]
  ? any
  : T extends unknown
    ? {
        [K in keyof T]: IsAny<T[K]> extends true
          ? T[K]
          : Same<AsMessages<Unwrapped<T[K]>>, BaseMessage[]> extends true
            ? BaseMessage[]
            : Same<AsMessage<Unwrapped<T[K]>>, BaseMessage> extends true
              ? BaseMessage
              : Plain<Unwrapped<T[K]>, [0, ...Depth]>;
      }
    : never;
type Known<T> = IsAny<T> extends true ? never : T;

type RunInputOf<G> = G extends { RunInput: infer I } ? I : G extends { "~InputType": infer I } ? I : never;
type BuilderTypes<G> = G extends {
  builder: {
    _inputDefinition: infer I extends StateDefinition;
    _outputDefinition: infer O extends StateDefinition;
    _configSchema?: infer C extends StateDefinition | undefined;
  };
}
  ? { input: UpdateType<I>; output: StateType<O>; config: UpdateType<Exclude<C, undefined>> }
  : never;
`;
