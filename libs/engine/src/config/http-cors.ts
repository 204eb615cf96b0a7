import { z } from "zod";

/**
 * langgraph.json `http.cors`, with the keys of the official servers (Starlette's CORSMiddleware names).
 * Strict: a misspelt key would otherwise be dropped silently and leave every origin refused.
 */
export const HttpCorsSchema = z.strictObject({
  allow_origins: z.array(z.string()).optional(),
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
  allow_methods: z.array(z.string()).optional(),
  allow_headers: z.array(z.string()).optional(),
  allow_credentials: z.boolean().optional(),
  expose_headers: z.array(z.string()).optional(),
  max_age: z.number().int().nonnegative().optional(),
});

export type HttpCorsConfig = z.infer<typeof HttpCorsSchema>;
