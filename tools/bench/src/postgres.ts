import pg from "pg";
import { postgresForScript } from "@agent-server/testing/postgres";
import { onCleanUp } from "./processes.js";

export interface BenchPostgres {
  url: string;
  /** A new schema name (the driver creates the schema when it opens); dropped when the bench ends. */
  newSchema(prefix: string): string;
}

/**
 * $POSTGRES_URL, else an embedded server started now (see postgresForScript). Schemas handed out are
 * dropped at clean-up, before an embedded server is stopped (clean-ups run latest first).
 */
export async function openBenchPostgres(): Promise<BenchPostgres> {
  const { url, stop } = await postgresForScript();
  onCleanUp(stop);
  const schemas: string[] = [];
  onCleanUp(async () => {
    for (const schema of schemas) await dropSchema(url, schema);
  });
  return {
    url,
    newSchema(prefix) {
      const schema = `${prefix}_${Date.now().toString(36)}_${schemas.length}`;
      schemas.push(schema);
      return schema;
    },
  };
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
