import pg from "pg";
import { postgresForScript } from "@agent-server/testing/postgres";
import { onCleanUp } from "./processes.js";

export interface BenchPostgres {
  url: string;
  /** A new schema name (the driver creates the schema when it opens); dropped when the bench ends. */
  newSchema(prefix: string): string;
}

/**
 * $POSTGRES_URL, else an embedded server started now (see postgresForScript). On $POSTGRES_URL the schemas
 * handed out are dropped at clean-up; an embedded server goes away whole.
 */
export async function openBenchPostgres(): Promise<BenchPostgres> {
  const external = Boolean(process.env.POSTGRES_URL);
  const { url, stop } = await postgresForScript();
  onCleanUp(stop);
  const schemas: string[] = [];
  if (external) {
    onCleanUp(async () => {
      for (const schema of schemas) await dropSchema(url, schema);
    });
  }
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
