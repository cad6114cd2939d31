import type { Db } from '../../db/database';
import { isDatabaseDiskFull } from '../../db/db-errors';
import { lockedTransaction } from '../../db/locks';
import { sqliteCode, tooManyRequests } from '../../errors';
import {
  deleteAttempts,
  forgetAttemptsUntil,
  insertAttempt,
  placesSince,
  recentAttempts as attemptsSince,
  settleAttempts,
} from './attempts.repository';

/**
 * Sliding-window limits on attempts (failed logins, wrong MFA codes, MFA resends), kept in the
 * login_failures table (key, at) so that neither a restart nor a burst of parallel requests resets them.
 *
 * An attempt takes its place in every count it belongs to BEFORE it is evaluated, in one write
 * transaction, so a burst of any size evaluates at most `limit` attempts: the rest wait or get 429. An
 * attempt that succeeds gives its place back (only failures count); one that fails keeps it. A place is held
 * (login_failures.pending_until) while its attempt runs, in this process or another instance on the same database;
 * while the settled failures alone are under the limit, a newcomer waits for a held place to settle instead of
 * being refused, so that a burst of right passwords is served, one hash after another. In any interval of
 * `windowMs`, at most `limit` attempts of one key are evaluated and fail (docs/security.md has the arithmetic).
 */
export interface AttemptRule {
  readonly key: string;
  readonly limit: number;
  readonly windowMs: number;
  /** Who is limited, for the 429 message: "this account", "your address". */
  readonly what: string;
  /** "failed logins", "wrong codes", "new codes". */
  readonly counts: string;
}

/** The places an attempt holds (ids of login_failures), to give back or keep. */
export interface Place {
  readonly rules: readonly AttemptRule[];
  readonly ids: readonly number[];
  /** The disk was full (SQLITE_FULL, which the error handler answers 507): the attempt was not counted, so it may succeed but not fail. */
  readonly uncounted?: unknown;
}

/** The longest window of any rule: older rows are deleted. */
export const LONGEST_WINDOW_MS = 60 * 60 * 1000;
/** How long a waiting attempt sleeps before it looks again when no attempt of this process wakes it. */
const RECHECK_MS = 200;

/**
 * How long a place is held by an attempt still running (pending_until): far longer than any attempt takes (a
 * password hash, an SMS code check); the place of an instance killed mid-attempt counts as a failure after it.
 */
export const PENDING_MS = 60_000;

/** Attempts of this process waiting for a place: woken when one of this process settles (others' are found by polling). */
const waiters = new Set<() => void>();

type Verdict = { kind: 'placed'; ids: number[] } | { kind: 'wait' } | { kind: 'refused'; rule: AttemptRule; retryAfterS: number };

/**
 * Counts, then places, under each rule key's lock (src/db/locks.ts): on PostgreSQL, instances sharing the database
 * take their turns per key, so a burst spread over all of them is counted as on one (SERIALIZABLE alone aborted most
 * of a 30-wide burst: correct, but 503s instead of 401/429); on SQLite the write lock already gives the turns.
 */
async function tryPlace(db: Db, rules: readonly AttemptRule[], now: number): Promise<Verdict> {
  return lockedTransaction(
    db,
    rules.map((r) => `throttle:${r.key}`),
    async (trx) => {
      let wait = false;
      for (const rule of rules) {
        const rows = await placesSince(trx, rule.key, now - rule.windowMs, rule.limit);
        if (rows.length < rule.limit) continue;
        const running = rows.filter((r) => r.pending_until !== null && r.pending_until > now).length;
        if (rows.length - running >= rule.limit) {
          // Full of settled failures: free when the oldest of the last `limit` leaves the window.
          const oldest = rows[rows.length - 1]?.at ?? now;
          return { kind: 'refused', rule, retryAfterS: (oldest + rule.windowMs - now) / 1000 };
        }
        wait = true;
      }
      if (wait) return { kind: 'wait' };
      await forgetAttemptsUntil(trx, now - LONGEST_WINDOW_MS);
      const ids: number[] = [];
      for (const rule of rules) ids.push(await insertAttempt(trx, rule.key, now, now + PENDING_MS));
      return { kind: 'placed', ids };
    },
  );
}

/**
 * Takes a place in every rule's count, waiting while attempts still running (here or on another instance) hold the
 * last places; 429 when a count is full of failures.
 */
export async function takePlace(db: Db, rules: readonly AttemptRule[], now: () => number): Promise<Place> {
  for (;;) {
    let verdict: Verdict;
    try {
      verdict = await tryPlace(db, rules, now());
    } catch (err) {
      if (!diskFull(err)) throw err;
      // Reads and right passwords go on while the disk is full; a failure is answered 507 by settle.
      return { rules, ids: [], uncounted: err };
    }
    if (verdict.kind === 'placed') {
      return { rules, ids: verdict.ids };
    }
    if (verdict.kind === 'refused') {
      const { rule, retryAfterS } = verdict;
      throw tooManyRequests(`Too many ${rule.counts} for ${rule.what}; try again in ${Math.ceil(retryAfterS)} seconds`, retryAfterS);
    }
    await new Promise<void>((resolve) => {
      const wake = () => {
        waiters.delete(wake);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(wake, RECHECK_MS);
      waiters.add(wake);
    });
  }
}

/** The attempt is over: a success gives its places back, a failure keeps them in the counts (one that could not be counted: 507). */
export async function settle(db: Db, place: Place, succeeded: boolean): Promise<void> {
  try {
    if (!succeeded && place.uncounted !== undefined) throw place.uncounted;
    if (succeeded && place.ids.length > 0) await deleteAttempts(db, place.ids);
    // A failure keeps its place, no longer held. On a full disk the place stays held until its time runs out and
    // then counts as a failure all the same: the answer is the attempt's own (401), not 507.
    if (!succeeded && place.ids.length > 0) await settleAttempts(db, place.ids).catch(ignoreDiskFull);
  } finally {
    for (const wake of [...waiters]) wake();
  }
}

/** The disk under the database is full: SQLite's file's (SQLITE_FULL) or PostgreSQL's server's (53100); both answered 507. */
const diskFull = (err: unknown) => sqliteCode(err) === 'SQLITE_FULL' || isDatabaseDiskFull(err);

const ignoreDiskFull = (err: unknown) => {
  if (!diskFull(err)) throw err;
};

/** What a throttled attempt needs: the database its counts live in, and the clock. */
export interface AttemptDeps {
  readonly db: Db;
  readonly clock: { now(): number };
}

/**
 * The one way an attempt is throttled: it takes its place in every rule's count (429 past a limit), runs, and
 * settles: `succeeded(result)` gives the places back, anything else (a falsy answer, a throw) keeps them as a
 * failure. Returns what `run` returned.
 */
export async function throttled<T>(
  deps: AttemptDeps,
  rules: readonly AttemptRule[],
  run: () => Promise<T>,
  succeeded: (result: T) => boolean = Boolean,
): Promise<T> {
  const place = await takePlace(deps.db, rules, deps.clock.now);
  let result: T | undefined;
  let ok = false;
  try {
    result = await run();
    ok = succeeded(result);
  } finally {
    await settle(deps.db, place, ok);
  }
  return result as T;
}

/** Counts one attempt as a failure at once (a code sent, a reset asked for): 429 once the count is full. */
export async function countAttempt(deps: AttemptDeps, rules: readonly AttemptRule[]): Promise<void> {
  await settle(deps.db, await takePlace(deps.db, rules, deps.clock.now), false);
}

/** The answer to any wrong, expired or unknown one-time code: one sentence, whichever it was. */
export const BAD_CODE = 'Invalid or expired one-time code';

/** Throws 429 when the rule's count is full (without taking a place). */
export async function refuseWhenFull(db: Db, rule: AttemptRule, now: number): Promise<void> {
  const rows = await recentAttempts(db, rule, now);
  if (rows.length < rule.limit) return;
  const retryAfterS = ((rows[rows.length - 1]?.at ?? now) + rule.windowMs - now) / 1000;
  throw tooManyRequests(`Too many ${rule.counts} for ${rule.what}; try again in ${Math.ceil(retryAfterS)} seconds`, retryAfterS);
}

/** The times of the rule's latest attempts within its window, newest first: at most as many as it allows. */
function recentAttempts(db: Db, rule: AttemptRule, now: number): Promise<{ at: number }[]> {
  return attemptsSince(db, rule.key, now - rule.windowMs, rule.limit);
}
