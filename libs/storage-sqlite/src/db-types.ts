import type Database from "better-sqlite3";

/** A better-sqlite3 connection, and a statement prepared on one (db.ts opens them, traced-statements.ts wraps them). */
export type Db = Database.Database;
export type Stmt = Database.Statement;
