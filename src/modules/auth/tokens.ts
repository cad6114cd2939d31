import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { existsSync, linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';

/** What an access token carries: the user and the version of its credentials when it was issued. */
export interface TokenClaims {
  readonly uid: number;
  /** users.token_version at issue time; changing the password or deleting the user makes it stale. */
  readonly ver: number;
  /** When it was issued (Unix seconds); set on the claims of a verified token. */
  readonly iat?: number;
}

/**
 * HS256 access tokens (decisions.md §4). The secret is a KeyObject: jsonwebtoken then skips trying to
 * read a string secret as a PEM key on every verification, which is 40 times faster.
 */
export class TokenService {
  private readonly key: KeyObject;

  constructor(
    secret: Buffer | string,
    private readonly ttlSeconds: number,
  ) {
    this.key = createSecretKey(typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret);
  }

  issue(claims: TokenClaims): string {
    return jwt.sign({ uid: claims.uid, ver: claims.ver }, this.key, { algorithm: 'HS256', expiresIn: this.ttlSeconds });
  }

  /** The claims of a valid, unexpired token signed with our secret and HS256 only; otherwise null. */
  verify(token: string): TokenClaims | null {
    try {
      const payload = jwt.verify(token, this.key, { algorithms: ['HS256'] });
      if (typeof payload !== 'object' || payload === null) return null;
      const { uid, ver, exp, iat } = payload as Record<string, unknown>;
      // jsonwebtoken checks `exp` only when present: a token without one would never expire.
      if (typeof exp !== 'number' || !Number.isSafeInteger(uid) || !Number.isSafeInteger(ver)) return null;
      return { uid: uid as number, ver: ver as number, iat: typeof iat === 'number' ? iat : 0 };
    } catch {
      return null;
    }
  }
}

export const SECRET_FILE = 'jwt-secret';

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
    writeFileSync(partial, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
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
