import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { existsSync, linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import type { Db } from '../../db/database';
import { engineOf } from '../../db/engine';
import { insertSettingIfAbsent, readSetting } from './settings.repository';

/** What an access token carries: the user and the version of its credentials when it was issued. */
export interface TokenClaims {
  readonly uid: number;
  /** users.token_version at issue time; changing the password or deleting the user makes it stale. */
  readonly ver: number;
  /** When it was issued (Unix seconds); set on the claims of a verified token. */
  readonly iat?: number;
}

/** How many verified tokens a TokenService remembers (see TokenService.verify). */
export const VERIFIED_TOKENS_KEPT = 2000;

/**
 * HS256 access tokens (decisions.md §4). The secret is a KeyObject: jsonwebtoken then skips trying to
 * read a string secret as a PEM key on every verification, which is 40 times faster.
 */
export class TokenService {
  private readonly key: KeyObject;
  /** Tokens whose signature verified, with their claims and expiry, oldest first (see verify). */
  private readonly verified = new Map<string, { readonly claims: TokenClaims; readonly exp: number }>();

  constructor(
    secret: Buffer | string,
    private readonly ttlSeconds: number,
    /** Unix seconds now: the real clock, as jsonwebtoken reads it; a unit test passes its own. */
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {
    this.key = createSecretKey(typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret);
  }

  issue(claims: TokenClaims): string {
    return jwt.sign({ uid: claims.uid, ver: claims.ver }, this.key, { algorithm: 'HS256', expiresIn: this.ttlSeconds });
  }

  /**
   * The claims of a valid, unexpired token signed with our secret and HS256 only; otherwise null.
   *
   * A token whose signature verified is remembered (the last VERIFIED_TOKENS_KEPT), and when it comes again
   * only its expiry is checked, by jsonwebtoken's rule: the same text under the same secret verifies the same
   * way every time, and a client sends one token with every request until it expires. Verifying took a
   * tenth of the CPU of a GET /v2/webhooks/{id} (npm run bench). Only a verified token is kept, so a forged one
   * cannot fill the memory; whether the token's user still holds it (its token_version) is read from the
   * database with every request as before (access/caller.ts).
   */
  verify(token: string): TokenClaims | null {
    const now = this.nowSeconds();
    const known = this.verified.get(token);
    if (known) {
      if (now < known.exp) return known.claims;
      this.verified.delete(token);
      return null;
    }
    const checked = this.check(token, now);
    if (!checked) return null;
    // A token that also says from when it is valid (`nbf`; ours never do) is verified every time.
    if (checked.nbf) return checked.claims;
    if (this.verified.size >= VERIFIED_TOKENS_KEPT) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, { claims: checked.claims, exp: checked.exp });
    return checked.claims;
  }

  /** How many verified tokens are remembered (tests). */
  get remembered(): number {
    return this.verified.size;
  }

  private check(token: string, now: number): { claims: TokenClaims; exp: number; nbf: boolean } | null {
    try {
      const payload = jwt.verify(token, this.key, { algorithms: ['HS256'], clockTimestamp: now });
      if (typeof payload !== 'object' || payload === null) return null;
      const { uid, ver, exp, iat, nbf } = payload as Record<string, unknown>;
      // jsonwebtoken checks `exp` only when present: a token without one would never expire.
      if (typeof exp !== 'number' || !Number.isSafeInteger(uid) || !Number.isSafeInteger(ver)) return null;
      return { claims: { uid: uid as number, ver: ver as number, iat: typeof iat === 'number' ? iat : 0 }, exp, nbf: nbf !== undefined };
    } catch {
      return null;
    }
  }
}

export const SECRET_FILE = 'jwt-secret';
/** The name of the JWT secret's row in tars_settings (PostgreSQL). */
export const SECRET_SETTING = 'jwt_secret';

/** A new secret: 256 random bits, as text. */
const newSecret = () => randomBytes(32).toString('base64url');

/**
 * The JWT secret of the process whose database is `db`: TARS_JWT_SECRET when configured; else on SQLite the data
 * directory's file (loadJwtSecret), on PostgreSQL the database's (databaseJwtSecret), so that every instance of one
 * database signs and accepts the same tokens.
 */
export async function jwtSecretFor(db: Db, dataDir: string, configured: string | undefined): Promise<Buffer> {
  if (configured) return Buffer.from(configured, 'utf8');
  return engineOf(db) === 'sqlite' ? loadJwtSecret(dataDir, undefined) : databaseJwtSecret(db);
}

/**
 * The secret kept in tars_settings, generated by the first instance that starts on the database: every instance
 * offers a new one with INSERT … ON CONFLICT DO NOTHING, then reads the row, so two starting at once agree on one.
 */
export async function databaseJwtSecret(db: Db): Promise<Buffer> {
  await insertSettingIfAbsent(db, SECRET_SETTING, newSecret());
  const text = (await readSetting(db, SECRET_SETTING))?.trim() ?? '';
  if (text.length < 32)
    throw new Error(`the database's ${SECRET_SETTING} setting (table tars_settings) holds no usable secret (fewer than 32 characters)`);
  return Buffer.from(text, 'utf8');
}

/**
 * The configured secret, or the one kept in the data directory: generated on first start (256 bits,
 * file mode 0600). It is written to a temporary file and hard-linked into place, which fails when the
 * file exists: two processes starting together agree on one secret and never read half a file.
 */
export function loadJwtSecret(dataDir: string, configured: string | undefined): Buffer {
  if (configured) return Buffer.from(configured, 'utf8');
  const file = join(dataDir, SECRET_FILE);
  if (!existsSync(file)) {
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, `${newSecret()}\n`, { mode: 0o600 });
    try {
      linkSync(partial, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      unlinkSync(partial);
    }
  }
  const text = readFileSync(file, 'utf8').trim();
  if (text.length < 32) throw new Error(`${file} holds no usable secret (fewer than 32 characters)`);
  return Buffer.from(text, 'utf8');
}
