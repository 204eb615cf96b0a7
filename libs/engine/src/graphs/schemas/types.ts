export type JsonSchema = Record<string, unknown>;

/**
 * JSON schemas of a graph's input, output, state (the update a client sends) and config; null where
 * none can be derived, which the SDK's `GraphSchema` type allows.
 */
export interface GraphSchemaSet {
  input: JsonSchema | null;
  output: JsonSchema | null;
  state: JsonSchema | null;
  config: JsonSchema | null;
}

export const NO_SCHEMAS: GraphSchemaSet = Object.freeze({ input: null, output: null, state: null, config: null });
