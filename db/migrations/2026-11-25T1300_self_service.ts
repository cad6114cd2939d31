import { sql, type Kysely } from 'kysely';

/**
 * Self-service accounts (issue 19): a tenant can require MFA of its users; a user's MFA mode waiting to be
 * verified (its TOTP secret, its phone number, the hash of the code sent) lives in mfa_enrolments until its
 * first right code switches it on; password-reset tokens are kept only as hashes, single-use and short-lived.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tenants ADD COLUMN mfa_required INTEGER NOT NULL DEFAULT 0`.execute(db);
  await sql`CREATE TABLE mfa_enrolments (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    mode TEXT NOT NULL CHECK (mode IN ('app', 'email', 'sms')),
    secret TEXT NOT NULL DEFAULT '',
    phone_number TEXT NOT NULL DEFAULT '',
    code_hash TEXT,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, mode)
  ) WITHOUT ROWID`.execute(db);
  await sql`CREATE TABLE password_resets (
    token_hash TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID`.execute(db);
  await sql`CREATE INDEX password_resets_user ON password_resets (user_id)`.execute(db);
}
