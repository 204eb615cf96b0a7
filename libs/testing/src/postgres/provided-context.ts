/** What the global setup provides to every test file, typed for `inject()`. */
declare module "vitest" {
  export interface ProvidedContext {
    /** Connection URL of the PostgreSQL server for this test run (`inject("postgresUrl")`). */
    postgresUrl: string;
  }
}

export {};
