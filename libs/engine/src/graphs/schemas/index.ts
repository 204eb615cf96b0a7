export { runtimeGraphSchemas, type GraphOrigin } from "./runtime-schemas.js";
export { StaticSchemaCache, DEFAULT_STATIC_SCHEMA_OPTIONS, type StaticSchemaOptions } from "./static-schema-cache.js";
export type { StaticGraphSchemas, StaticTarget } from "./static-schemas.js";
export { NO_SCHEMAS, type GraphSchemaSet, type JsonSchema } from "./types.js";
