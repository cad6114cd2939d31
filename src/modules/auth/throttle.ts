import type { Db } from '../../db/database';
import { tooManyRequests } from '../../errors';

/**
 * Login throttling (decisions.md §4): 10 failed logins for one e-mail, or 100 from one client address,
 * within 15 minutes → 429 with Retry-After, even with the right password, until the window has passed.
 * Only failures count. Failures live in the database, so the throttle survives a restart.
 */
export const WINDOW_MS = 15 * 60 * 1000;
export const LIMITS = { email: 10, address: 100 } as const;

const emailKey = (email: string) => `email:${email.trim().toLowerCase()}`;
const addressKey = (ip: string) => `ip:${ip}`;

/** Throws 429 when either key is over its limit at `now`. */
export async function checkThrottle(db: Db, email: string, ip: string, now: number): Promise<void> {
  for (const [key, limit, what] of [
    [emailKey(email), LIMITS.email, 'this account'],
    [addressKey(ip), LIMITS.address, 'your address'],
  ] as const) {
    const rows = await db
      .selectFrom('login_failures')
      .select('at')
      .where('key', '=', key)
      .where('at', '>', now - WINDOW_MS)
      .orderBy('at', 'desc')
      .limit(limit)
      .execute();
    if (rows.length >= limit) {
      // Unlocked when the oldest of the last `limit` failures leaves the window.
      const oldest = rows[rows.length - 1]?.at ?? now;
      const retryAfter = (oldest + WINDOW_MS - now) / 1000;
      throw tooManyRequests(`Too many failed logins for ${what}; try again in ${Math.ceil(retryAfter)} seconds`, retryAfter);
    }
  }
}

export async function recordFailure(db: Db, email: string, ip: string, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('login_failures').where('at', '<=', now - WINDOW_MS).execute();
    await trx.insertInto('login_failures').values([
      { key: emailKey(email), at: now },
      { key: addressKey(ip), at: now },
    ]).execute();
  });
}
