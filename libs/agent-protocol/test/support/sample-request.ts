/**
 * Test support: the smallest request body an operation of /openapi.json accepts, built from its JSON
 * schema (required properties only, first enum member, one array element). Used by the route coverage
 * test, which needs every route to get past validation and reach its authorization.
 */

interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  default?: unknown;
}

export interface OpenApiOperation {
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, Schema> };
}

export function sampleBody(doc: OpenApiDocument, operation: OpenApiOperation): unknown {
  const schema = operation.requestBody?.content?.["application/json"]?.schema;
  return schema ? sample(doc, schema, 0) : undefined;
}

function sample(doc: OpenApiDocument, schema: Schema, depth: number): unknown {
  if (depth > 12) return null;
  if (schema.$ref) {
    const name = schema.$ref.replace("#/components/schemas/", "");
    return sample(doc, doc.components?.schemas?.[name] ?? {}, depth + 1);
  }
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants?.length) {
    const usable = variants.find((v) => v.type !== "null") ?? variants[0]!;
    return sample(doc, usable, depth + 1);
  }
  if (schema.allOf?.length) {
    return Object.assign({}, ...schema.allOf.map((part) => sample(doc, part, depth + 1) as object));
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "string":
      if (schema.format === "uuid") return crypto.randomUUID();
      if (schema.format === "date-time") return new Date().toISOString();
      return "x".repeat(Math.max(1, schema.minLength ?? 1));
    case "integer":
    case "number":
      return Math.max(1, schema.minimum ?? 0, (schema.exclusiveMinimum ?? 0) + 1);
    case "boolean":
      return false;
    case "array":
      return schema.items ? [sample(doc, schema.items, depth + 1)] : [];
    case "object":
    case undefined: {
      if (!schema.properties) return {};
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) {
        const property = schema.properties[key];
        if (property) out[key] = sample(doc, property, depth + 1);
      }
      return out;
    }
    default:
      return null;
  }
}
