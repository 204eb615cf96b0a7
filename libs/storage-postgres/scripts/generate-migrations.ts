// Compiles migrations/*.sql into src/migrations.generated.ts (run: npx nx run storage-postgres:generate-migrations).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { readMigrations, renderMigrationsModule } from "../src/migrations-compiler.js";

const root = join(import.meta.dirname, "..");
const migrations = readMigrations(join(root, "migrations"));
const target = join(root, "src", "migrations.generated.ts");
writeFileSync(target, renderMigrationsModule(migrations));
console.log(`wrote ${target} (${migrations.length} migration${migrations.length === 1 ? "" : "s"})`);
