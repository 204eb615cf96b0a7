import { z } from "zod";

/**
 * langgraph.json `http.cors`, with the keys of the official servers (Starlette's CORSMiddleware names).
 * Strict: a misspelt key would otherwise be dropped silently and leave every origin refused.
 */
export const HttpCorsSchema = z.strictObject({
  /** Origins allowed to call the API; `"*"` allows any. Absent: none (as on the official servers). */
  allow_origins: z.array(z.string()).optional(),
  /** A regular expression the whole origin may match instead of being listed (as Starlette's fullmatch). */
  allow_origin_regex: z
    .string()
    .refine((source) => {
      try {
        new RegExp(source);
        return true;
      } catch {
        return false;
      }
    }, "not a valid regular expression")
    .optional(),
  /** Absent: GET, HEAD, PUT, POST, DELETE, PATCH. `"*"` is the same. */
  allow_methods: z.array(z.string()).optional(),
  /** Absent or `"*"`: whatever headers the preflight asks for. */
  allow_headers: z.array(z.string()).optional(),
  allow_credentials: z.boolean().optional(),
  /** Added to the headers the SDK has to read, which are always exposed. */
  expose_headers: z.array(z.string()).optional(),
  /** Seconds a browser may cache a preflight answer. */
  max_age: z.number().int().nonnegative().optional(),
});

export type HttpCorsConfig = z.infer<typeof HttpCorsSchema>;
