import { randomBytes } from 'node:crypto';
import type { Caller } from '../../access/caller';
import { scopeOfStoredRow } from '../../access/scope';
import type { Clock } from '../../clock';
import { transaction, type Db } from '../../db/database';
import type { UserRow } from '../../db/schema';
import { badRequest, notAuthenticated } from '../../errors';
import type { ResponseBody } from '../../http/route';
import type { Logger } from '../../log';
import type { Mailer } from '../../mail/mailer';
import { saveReset, takeReset, tenantRequiresMfa } from './account.repository';
import { countAttempt, throttled, type AttemptRule } from './attempt-limits';
import { findUserByEmail, findUserById, setPassword } from './credentials.repository';
import { hashToken } from './mfa';
import { hashPassword } from './passwords';
import { requirePresence, type PresenceProof } from './presence';
import type { TokenService } from './tokens';

/** A reset token lives this long, and is good once. */
export const RESET_TTL_MS = 30 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/** Reset e-mails per address and per client, and password changes per user, each an hour (docs/security.md). */
const resetRequestRules = (email: string, ip: string): AttemptRule[] => [
  { key: `reset:${email.trim().toLowerCase()}`, limit: 5, windowMs: HOUR_MS, what: 'this address', counts: 'password-reset requests' },
  { key: `reset-ip:${ip}`, limit: 30, windowMs: HOUR_MS, what: 'your address', counts: 'password-reset requests' },
];
const resetTokenRule = (ip: string): AttemptRule => ({
  key: `reset-token:${ip}`,
  limit: 10,
  windowMs: HOUR_MS,
  what: 'your address',
  counts: 'invalid reset tokens',
});
const passwordChangeRule = (userId: number): AttemptRule => ({
  key: `password:${userId}`,
  limit: 5,
  windowMs: HOUR_MS,
  what: 'this account',
  counts: 'password changes',
});

/** The answer of the password routes; after a signed-in change, a token for the client that made it (every earlier one ended). */
export type StatusAnswer = ResponseBody<'status-response'>;

const REQUESTED: StatusAnswer = {
  status: 'success',
  message: 'If an account uses this address, an e-mail with a reset token is on its way; the token is good once, for 30 minutes',
};

/** What the password routes use (docs/architecture.md, "The service shape"). */
export interface PasswordDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly mailer: Mailer;
  readonly log: Pick<Logger, 'warn'>;
  readonly tokens: Pick<TokenService, 'issue'>;
}

/*
 * Password reset, by e-mail or signed in (issue 19). Every earlier access token and reset token dies with the old
 * password. The reset routes are public: those functions have no caller.
 */

/**
 * POST /v2/users/request-password-reset: the same answer, at the same speed, whether the address has an account or
 * not; the e-mail goes out afterwards.
 */
export async function requestReset(deps: PasswordDeps, input: { email: string; ip: string }): Promise<StatusAnswer> {
  await countAttempt(deps, resetRequestRules(input.email, input.ip));
  const user = await findUserByEmail(deps.db, input.email);
  if (!user) return REQUESTED;
  await mailReset(deps, user);
  return REQUESTED;
}

/**
 * An admin's reset e-mail for a user of its scope (POST /v2/admin/users/{id}/password-reset): the same e-mail and
 * token as the public request, counted against the same limit of the address (so nobody floods a user's mailbox).
 */
export async function sendResetFor(deps: Omit<PasswordDeps, 'tokens'>, user: UserRow, ip: string): Promise<StatusAnswer> {
  await countAttempt(deps, resetRequestRules(user.email, ip));
  await mailReset(deps, user);
  return { status: 'success', message: `A reset e-mail is on its way to ${user.email}; its token is good once, for 30 minutes` };
}

/** Saves a new reset token of the user and e-mails it (afterwards: the answer does not wait for the mail server). */
async function mailReset(deps: Omit<PasswordDeps, 'tokens'>, user: UserRow): Promise<void> {
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  await saveReset(deps.db, hashToken(token), user.id, now, now + RESET_TTL_MS);
  const text =
    `Someone asked to reset the password of your TARS account ${user.email}.\n\n` +
    `Your reset token (good once, for 30 minutes):\n\n${token}\n\n` +
    'Send it with a new password to POST /v2/users/reset-password {"token": "...", "password": "..."}.\n' +
    'If it was not you, ignore this e-mail: your password stays as it is.';
  deps.mailer
    .send({ to: user.email, subject: 'Reset your TARS password', text })
    .catch((err: unknown) => deps.log.warn({ userId: user.id, err }, 'password-reset e-mail not sent'));
}

/** POST /v2/users/reset-password: the token of the e-mail and a new password. */
export async function resetWithToken(deps: PasswordDeps, input: { token: string; password: string; ip: string }): Promise<StatusAnswer> {
  const userId = await throttled(
    deps,
    [resetTokenRule(input.ip)],
    () => takeReset(deps.db, hashToken(input.token), deps.clock.now()),
    (id) => id !== undefined,
  );
  const user = userId === undefined ? undefined : await findUserById(deps.db, userId);
  if (!user) throw notAuthenticated('Invalid or expired reset token: ask for a new one');
  await change(deps, user, input.password);
  return { status: 'success', message: 'The password is changed; sign in with it' };
}

/**
 * POST /v2/users/manual-reset-password: the signed-in user's new password, with proof that it is the owner (the
 * current password or a current MFA code: a token alone is not enough). Every earlier token ends, the caller's
 * too; the answer carries a new one for the client that made the change.
 */
export async function changeOwnPassword(
  deps: PasswordDeps,
  caller: Caller,
  input: { password: string; currentPassword?: string; otp?: string },
): Promise<StatusAnswer> {
  const user = await findUserById(deps.db, caller.user.id);
  if (!user) throw notAuthenticated('Missing, invalid or expired access token');
  if (input.password.length < 8) throw badRequest('password must be at least 8 characters long');
  const proof: PresenceProof = { password: input.currentPassword, otp: input.otp };
  await requirePresence(deps, user, proof, 'currentPassword');
  await countAttempt(deps, [passwordChangeRule(user.id)]);
  const version = await change(deps, user, input.password);
  // A new token on the terms of a sign-in: none for a user whose tenant requires the MFA it does not have.
  if (user.mfa_enabled !== 1 && (await tenantRequiresMfa(deps.db, user.tenant_id)))
    return { status: 'success', message: 'The password is changed; your organisation requires MFA: sign in to set it up' };
  return {
    status: 'success',
    message: 'The password is changed; every earlier access token has ended (this answer carries a new one)',
    accessToken: deps.tokens.issue({ uid: user.id, ver: version }),
  };
}

/** Sets the password: what the old one opened ends (setPassword). The new credentials version. */
async function change(deps: PasswordDeps, user: UserRow, password: string): Promise<number> {
  if (password.length < 8) throw badRequest('password must be at least 8 characters long');
  const hash = await hashPassword(password);
  const version = await transaction(deps.db, (trx) => setPassword(trx, scopeOfStoredRow(user), user.id, hash));
  if (version === undefined) throw notAuthenticated('Missing, invalid or expired access token');
  return version;
}
