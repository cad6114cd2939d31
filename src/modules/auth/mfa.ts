import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Db } from '../../db/database';
import type { UserRow } from '../../db/schema';
import {
  countWrongChallengeCode,
  deleteChallenge,
  deleteConfirmations,
  findLiveChallenge,
  findLiveConfirmation,
  insertChallenge,
} from './challenges.repository';

/**
 * MFA challenges (decisions.md §4). A challenge lives 5 minutes and allows 5 wrong codes. Its token is
 * random and stored only as a hash; e-mail and SMS codes are stored only as hashes too. TOTP (RFC 6238,
 * SHA-1, 6 digits, 30 s) accepts the current step and one either side, and a step that succeeded once
 * is refused again for that user.
 */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
export const MAX_WRONG_CODES = 5;
export const TOTP_PERIOD_S = 30;

export type MfaMode = 'app' | 'email' | 'sms';
export const MFA_MODES: readonly MfaMode[] = ['app', 'email', 'sms'];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * A sign-in challenge is for a code of one mode; a set-up challenge (mfaSetupToken) lets a user enrol before it signs
 * in; a confirmation (`confirm`) holds a code sent to prove the owner is present (./presence.ts), found by its user.
 */
export type ChallengeMode = MfaMode | 'setup' | 'confirm';

export interface Challenge {
  readonly token: string;
  readonly mode: ChallengeMode;
  /** The code to send by e-mail or SMS; null for app mode. */
  readonly code: string | null;
}

export async function openChallenge(db: Db, userId: number, mode: ChallengeMode, now: number): Promise<Challenge> {
  const token = randomBytes(32).toString('base64url');
  const code = mode === 'app' || mode === 'setup' ? null : String(randomInt(0, 1_000_000)).padStart(6, '0');
  await insertChallenge(
    db,
    { token_hash: sha256(token), user_id: userId, mode, code_hash: code ? sha256(code) : null, expires_at: now + CHALLENGE_TTL_MS },
    now,
  );
  return { token, mode, code };
}

export interface OpenChallenge {
  readonly userId: number;
  readonly mode: ChallengeMode;
  readonly codeHash: string | null;
  readonly attempts: number;
}

/** The live challenge of a token (not expired, not exhausted), or undefined. */
export async function findChallenge(db: Db, token: string, now: number): Promise<OpenChallenge | undefined> {
  const row = await findLiveChallenge(db, sha256(token), now, MAX_WRONG_CODES);
  return row ? { userId: row.user_id, mode: row.mode as ChallengeMode, codeHash: row.code_hash, attempts: row.attempts } : undefined;
}

export async function countWrongCode(db: Db, token: string): Promise<void> {
  await countWrongChallengeCode(db, sha256(token));
}

export async function closeChallenge(db: Db, token: string): Promise<void> {
  await deleteChallenge(db, sha256(token));
}

/** A new confirmation code for the user (one at a time: it replaces any earlier one); its token is never given out. */
export async function openConfirmation(db: Db, userId: number, now: number): Promise<string> {
  await deleteConfirmations(db, userId);
  const challenge = await openChallenge(db, userId, 'confirm', now);
  return challenge.code as string;
}

/**
 * Takes the user's live confirmation code if `otp` is it (it is then gone: good once); a wrong code counts against
 * the confirmation's own 5 tries as well as the user's count of wrong codes.
 */
export async function takeConfirmation(db: Db, userId: number, otp: string, now: number): Promise<boolean> {
  const row = await findLiveConfirmation(db, userId, now, MAX_WRONG_CODES);
  if (!row?.code_hash) return false;
  if (!codeMatches(row.code_hash, otp)) {
    await countWrongChallengeCode(db, row.token_hash);
    return false;
  }
  return deleteChallenge(db, row.token_hash);
}

export function codeMatches(codeHash: string, otp: string): boolean {
  return timingSafeEqual(Buffer.from(codeHash, 'hex'), Buffer.from(sha256(otp), 'hex'));
}

/** The TOTP step the code belongs to (current step ±1), or null when it matches none. */
export function totpStep(base32Secret: string, otp: string, now: number): number | null {
  let secret: Secret;
  try {
    secret = Secret.fromBase32(base32Secret.replace(/[\s=]/g, '').toUpperCase());
  } catch {
    return null;
  }
  const totp = new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_S });
  const delta = totp.validate({ token: otp, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / TOTP_PERIOD_S) + delta;
}

/** Is `mode` usable for this user: its configured mode, or another one it has verified? */
export function modeAllowed(user: UserRow, mode: MfaMode): boolean {
  if (user.mfa_mode === mode) return true;
  if (mode === 'app') return user.mfa_app_verified === 1 && user.mfa_app_secret !== '';
  if (mode === 'email') return user.mfa_email_verified === 1;
  return user.mfa_sms_verified === 1 && user.mfa_phone_number !== '';
}

/** A phone number as a challenge shows it: only its last 4 digits (`*******4567`). */
export function maskPhone(number: string): string {
  const digits = number.replace(/\D/g, '');
  return digits.length <= 4 ? '*'.repeat(digits.length) : `${'*'.repeat(digits.length - 4)}${digits.slice(-4)}`;
}

/** A fresh TOTP secret (160 bits, RFC 4226's recommendation), base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// URI an authenticator app scans (Key URI Format): issuer TARS, the account's e-mail. */
export function otpauthUri(email: string, base32Secret: string): string {
  const secret = Secret.fromBase32(base32Secret);
  return new TOTP({ issuer: 'TARS', label: email, secret, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_S }).toString();
}

/** A 6-digit code for e-mail or SMS and the hash that is stored of it. */
export function newCode(): { code: string; hash: string } {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  return { code, hash: sha256(code) };
}

export const hashToken = sha256;
