import { sql, type Kysely } from 'kysely';

/**
 * The console (issue 30): its sign-in sessions and the read-only wallboard links of TV mode.
 *
 * A session is known by the SHA-256 of the random id its HttpOnly cookie carries (the id itself is never
 * stored); it is bound to the credentials' version of its user (a password change ends it, as it ends access
 * tokens), and ends at logout (its row deleted), after `idle` without use or at `expires_at`.
 *
 * A wallboard link is a token (stored as its SHA-256) that reads the live state of some queues of one tenant
 * and nothing else; revoking it deletes its row. A queue deleted leaves the links that showed it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE console_sessions (
    id INTEGER PRIMARY KEY,
    id_hash TEXT NOT NULL UNIQUE,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token_version INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX console_sessions_user ON console_sessions (user_id)`.execute(db);
  await sql`CREATE INDEX console_sessions_expiry ON console_sessions (expires_at)`.execute(db);
  await sql`CREATE TABLE wallboard_links (
    id INTEGER PRIMARY KEY,
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER
  )`.execute(db);
  await sql`CREATE INDEX wallboard_links_tenant ON wallboard_links (tenant_id)`.execute(db);
  await sql`CREATE TABLE wallboard_link_queues (
    link_id INTEGER NOT NULL REFERENCES wallboard_links(id) ON DELETE CASCADE,
    queue_id INTEGER NOT NULL REFERENCES queues(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (link_id, queue_id)
  ) WITHOUT ROWID`.execute(db);
  await sql`CREATE INDEX wallboard_link_queues_queue ON wallboard_link_queues (queue_id)`.execute(db);
}
