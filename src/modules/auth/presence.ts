import type { Clock } from '../../clock';
import type { Db } from '../../db/database';
import type { UserRow } from '../../db/schema';
import { notAuthenticated } from '../../errors';
import { recordTotpStep } from './credentials.repository';
import { BAD_CODE, throttled } from './attempt-limits';
import { takeConfirmation, totpStep } from './mfa';
import { verifyPassword } from './passwords';
import { mfaCodeRule } from './throttle';

/**
 * Proof that the owner of an account is present, beyond its access token (issue 27): a token is a bearer
 * credential, so whoever holds one (from a lost phone, a log, a backup) must not be able to turn MFA off, enrol a
 * factor of its own or set a new password with it alone. The proof is the current password, or a current code of
 * an MFA mode in use: the authenticator app's, or one sent to the verified phone or address by
 * POST /v2/mfa/auth/confirmation-code. A code is good once. How recently the token was issued proves nothing
 * (POST /v2/authentication/jwt gives any live token a fresh `iat`), so it is no proof (docs/authentication.md).
 */
export interface PresenceProof {
  /** The current password. */
  readonly password?: string;
  /** A current code of a mode in use. */
  readonly otp?: string;
}

export interface PresenceDeps {
  readonly db: Db;
  readonly clock: Clock;
}

/** What the 401 asks for, by the names of the route's body (manual-reset-password calls the password currentPassword). */
const ASK = (passwordField: string) =>
  `Confirm it is you: send your current password (${passwordField}) or a current code of your MFA (otp: your authenticator app's, ` +
  'or one sent by POST /v2/mfa/auth/confirmation-code)';

/**
 * Throws 401 unless the proof shows the owner is present. Every proof checked takes its place in the user's count
 * of wrong codes first (10 an hour, shared with sign-in codes: src/modules/auth/throttle.ts), so neither passwords
 * nor codes can be guessed through these routes faster than through the sign-in, however many arrive at once.
 */
export async function requirePresence(deps: PresenceDeps, user: UserRow, proof: PresenceProof, passwordField = 'password'): Promise<void> {
  if (proof.password === undefined && proof.otp === undefined) throw notAuthenticated(ASK(passwordField));
  const ok = await throttled(deps, [{ ...mfaCodeRule(user.id), counts: 'wrong passwords and one-time codes' }], async () =>
    proof.password !== undefined ? verifyPassword(proof.password, user.password_hash) : codeInUse(deps, user, proof.otp ?? ''),
  );
  if (!ok) throw notAuthenticated(proof.password !== undefined ? 'The password is wrong' : BAD_CODE);
}

/**
 * Is this a current code of a mode in use? Only while MFA is on: a user without MFA proves presence by its
 * password alone (a dormant factor it turned off is no proof). The app's code counts once (its TOTP step is
 * recorded, as at sign-in); an e-mailed or texted confirmation code is taken, so it is good once.
 */
async function codeInUse(deps: PresenceDeps, user: UserRow, otp: string): Promise<boolean> {
  if (user.mfa_enabled !== 1) return false;
  const now = deps.clock.now();
  if (user.mfa_app_verified === 1 && user.mfa_app_secret !== '') {
    const step = totpStep(user.mfa_app_secret, otp, now);
    if (step !== null) return recordTotpStep(deps.db, user.id, step);
  }
  return takeConfirmation(deps.db, user.id, otp, now);
}
