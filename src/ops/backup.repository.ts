import type { Sqlite } from '../db/database';
import { runOnce } from '../db/statements';

/** The table a backup file carries its facts in (when it was made, by which version, the JWT secret). */
export const BACKUP_TABLE = 'tars_backup';

/** Writes the facts into a backup copy (on its own connection, before it is closed). */
export function writeFacts(copy: Sqlite, facts: Readonly<Record<string, string | undefined>>): void {
  copy.exec(`CREATE TABLE ${BACKUP_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  for (const [key, value] of Object.entries(facts)) {
    if (value !== undefined) runOnce(copy, `INSERT INTO ${BACKUP_TABLE} (key, value) VALUES (@key, @value)`, { key, value });
  }
}

/** The facts of a backup file; none when it has no facts table. */
export function readFacts(sqlite: Sqlite): Record<string, string> {
  const exists = runOnce(sqlite, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = @name", { name: BACKUP_TABLE });
  if (exists.length === 0) return {};
  const rows = runOnce<{ key: string; value: string }>(sqlite, `SELECT key, value FROM ${BACKUP_TABLE}`);
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/** Takes the facts table out of a restored copy: the live database never has one. */
export function dropFacts(copy: Sqlite): void {
  copy.exec(`DROP TABLE IF EXISTS ${BACKUP_TABLE}`);
}
