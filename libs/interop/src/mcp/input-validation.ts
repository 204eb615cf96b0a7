import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

/** Compiled validators kept per distinct schema; graphs are few, but assistants (and so schemas) may be many. */
const MAX_CACHED = 100;

/**
 * Checks tool arguments against a tool's input schema before anything is created, with the SDK's own
 * JSON Schema validator (Ajv, formats on, all errors reported). A schema Ajv cannot compile does not
 * block the tool: its arguments go to the graph unchecked, as they would through the HTTP API.
 */
export class InputValidators {
  private readonly provider = new AjvJsonSchemaValidator();
  private readonly cache = new Map<string, JsonSchemaValidator<unknown> | null>();

  /** Undefined when `args` fit `schema`; otherwise what is wrong, as Ajv words it. */
  check(schema: Tool["inputSchema"], args: Record<string, unknown>): string | undefined {
    const validate = this.validator(schema);
    if (!validate) return undefined;
    const result = validate(args);
    return result.valid ? undefined : (result.errorMessage ?? "the arguments do not match the tool's input schema");
  }

  private validator(schema: Tool["inputSchema"]): JsonSchemaValidator<unknown> | null {
    const key = JSON.stringify(schema);
    let validate = this.cache.get(key);
    if (validate === undefined) {
      try {
        validate = this.provider.getValidator<unknown>(schema as JsonSchemaType);
      } catch {
        validate = null;
      }
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, validate);
    }
    return validate;
  }
}
