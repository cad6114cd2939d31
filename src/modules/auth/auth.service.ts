import type { Caller } from '../../access/caller';
import { callerOf, resolveCaller } from '../../access/caller';
import { scopeOfStoredRow } from '../../access/scope';
import type { Clock } from '../../clock';
import type { Db } from '../../db/database';
import type { UserRow } from '../../db/schema';
import { AppError, badRequest, notAuthenticated, unavailable } from '../../errors';
import type { ResponseBody } from '../../http/route';
import type { Mailer } from '../../mail/mailer';
import type { SmsGateway } from '../../mail/sms';
import { branchName } from '../branches/branches.repository';
import { tenantRequiresMfa } from './account.repository';
import { BAD_CODE, countAttempt, refuseWhenFull, throttled } from './attempt-limits';
import { findUserByEmail, findUserById, recordTotpStep } from './credentials.repository';
import { resendSetupCode, setupMode, verifyMode, type SetupAnswer } from './enrolment.service';
import {
  closeChallenge,
  codeMatches,
  countWrongCode,
  findChallenge,
  maskPhone,
  MFA_MODES,
  modeAllowed,
  openChallenge,
  totpStep,
  type MfaMode,
  type OpenChallenge,
} from './mfa';
import { dummyHash, verifyPassword } from './passwords';
import { loginRules, mfaCodeRule, mfaResendRule } from './throttle';
import type { TokenService } from './tokens';
import { toApiUser, type ApiUser } from './user';

/** For the modules that use auth's sign-in (the console's sessions) and the User object (users): its types. */
export type { ApiUser } from './user';
export type { MfaMode } from './mfa';
/** For the users module's administration and first administrator: passwords are hashed as a sign-in checks them. */
export { generatePassword, hashPassword } from './passwords';

export type AuthResult = ResponseBody<'auth-response'>;
export type MfaChallengeBody = ResponseBody<'mfa-challenge'>;
/** A user of a tenant that requires MFA, without MFA yet: it enrols with this token before it gets an access token. */
export type MfaSetupBody = ResponseBody<'mfa-setup-required'>;

/** What the sign-in uses (docs/architecture.md, "The service shape"): the codes go out by e-mail or SMS. */
export interface AuthDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly tokens: Pick<TokenService, 'issue' | 'verify'>;
  readonly mailer: Mailer;
  readonly sms: SmsGateway;
}

/*
 * Sign-in (decisions.md §4, issue 16): public routes, so these functions have no caller but `me`'s; what they
 * check is the password, the MFA code or the token given.
 */

const BAD_CREDENTIALS = 'Invalid e-mail or password';
const SETUP_REQUIRED = 'Your organisation requires MFA: set it up through POST /v2/authentication/mfa';

/** POST /v2/authentication/: password only. An MFA user is sent to /v2/authentication/mfa. */
export async function login(deps: AuthDeps, input: { email: string; password: string; ip: string }): Promise<AuthResult> {
  const user = await checkPassword(deps, input);
  if (user.mfa_enabled === 1) {
    throw notAuthenticated('Multi-factor authentication is enabled for this account: log in through POST /v2/authentication/mfa');
  }
  if (await tenantRequiresMfa(deps.db, user.tenant_id)) throw notAuthenticated(SETUP_REQUIRED);
  return issue(deps, user);
}

/** POST /v2/authentication/mfa: the user when MFA is off, else a challenge (and the code sent by e-mail/SMS). */
export async function loginMfa(
  deps: AuthDeps,
  input: { email: string; password: string; ip: string },
): Promise<AuthResult | MfaChallengeBody | MfaSetupBody> {
  const user = await checkPassword(deps, input);
  if (user.mfa_enabled !== 1) {
    if (!(await tenantRequiresMfa(deps.db, user.tenant_id))) return issue(deps, user);
    const setup = await openChallenge(deps.db, user.id, 'setup', deps.clock.now());
    return {
      mfaSetupToken: setup.token,
      message: 'Your organisation requires MFA: set it up with POST /v2/mfa/setup (the token lives 5 minutes)',
    };
  }
  const mode = (MFA_MODES as readonly string[]).includes(user.mfa_mode) ? (user.mfa_mode as MfaMode) : 'app';
  return challenge(deps, user, mode);
}

/** POST /v2/mfa/validate. Every code takes its place in the user's count of wrong codes first: past the limit, 429 whatever the code. */
export async function validate(deps: AuthDeps, input: { token: string; otp: string }): Promise<AuthResult> {
  const { token, otp } = input;
  const open = await findChallenge(deps.db, token, deps.clock.now());
  if (!open || open.mode === 'setup' || open.mode === 'confirm') throw notAuthenticated(BAD_CODE);
  const user = await findUserById(deps.db, open.userId);
  if (!user) throw notAuthenticated(BAD_CODE);
  const ok = await throttled(deps, [mfaCodeRule(user.id)], () => codeIsRight(deps, user, open, otp, deps.clock.now()));
  if (!ok) {
    await countWrongCode(deps.db, token);
    throw notAuthenticated(BAD_CODE);
  }
  await closeChallenge(deps.db, token);
  return issue(deps, user);
}

async function codeIsRight(deps: AuthDeps, user: UserRow, open: OpenChallenge, otp: string, now: number): Promise<boolean> {
  if (open.mode !== 'app') return open.codeHash !== null && codeMatches(open.codeHash, otp);
  const step = totpStep(user.mfa_app_secret, otp, now);
  // A code is accepted once: its step must be newer than the last one that succeeded.
  return step !== null && (await recordTotpStep(deps.db, user.id, step));
}

/**
 * POST /v2/mfa/resend-otp: a new challenge (and code) for an open one; the old token dies. The app sends the
 * phone number it shows: the code still goes only to the number on the account (or being set up).
 */
export async function resend(deps: AuthDeps, input: { token: string; mode?: MfaMode }): Promise<MfaChallengeBody> {
  const { token, mode } = input;
  const open = await findChallenge(deps.db, token, deps.clock.now());
  if (!open || open.mode === 'confirm') throw notAuthenticated(BAD_CODE);
  const user = await findUserById(deps.db, open.userId);
  if (!user) throw notAuthenticated(BAD_CODE);
  if (open.mode === 'setup') {
    if (user.mfa_enabled === 1) throw notAuthenticated('Invalid or expired MFA set-up token: sign in again');
    if (!mode) throw badRequest('mode is required to resend the code of a set-up');
    const sent = await resendSetupCode(deps, user, mode);
    return { mode, mfaVerifyToken: token, message: sent.message };
  }
  const next = mode ?? open.mode;
  if (!modeAllowed(user, next)) throw badRequest(`mode "${next}" is not set up for this account`);
  // A new challenge never resets the count of wrong codes, and new codes are limited themselves.
  await refuseWhenFull(deps.db, mfaCodeRule(user.id), deps.clock.now());
  await countAttempt(deps, [mfaResendRule(user.id)]);
  await closeChallenge(deps.db, token);
  return challenge(deps, user, next);
}

/**
 * POST /v2/authentication/jwt: a still-valid token buys a fresh one, on the terms of a sign-in: a user without MFA
 * of a tenant that requires it gets none (setting mfaRequired ends such tokens; this holds too when the tenant's
 * row changed some other way), whenever its token was issued.
 */
export async function refresh(deps: AuthDeps, input: { accessToken: string }): Promise<AuthResult> {
  const caller = await resolveCaller(deps.db, deps.tokens, input.accessToken);
  // The whole row for the response, still of the credentials the token was checked against.
  const user = await findUserById(deps.db, caller.user.id);
  if (!user || user.token_version !== caller.user.token_version) throw notAuthenticated('Missing, invalid or expired access token');
  if (user.mfa_enabled !== 1 && (await tenantRequiresMfa(deps.db, user.tenant_id))) throw notAuthenticated(SETUP_REQUIRED);
  return issue(deps, user);
}

async function checkPassword(deps: AuthDeps, input: { email: string; password: string; ip: string }): Promise<UserRow> {
  // The attempt counts from before the hash: a burst of parallel requests evaluates at most the limit.
  const user = await throttled(deps, loginRules(input.email, input.ip), async () => {
    const found = await findUserByEmail(deps.db, input.email);
    // Hash even when the e-mail is unknown, so the answer takes as long either way.
    return (await verifyPassword(input.password, found?.password_hash ?? (await dummyHash()))) ? found : undefined;
  });
  if (!user) throw notAuthenticated(BAD_CREDENTIALS);
  return user;
}

async function challenge(deps: AuthDeps, user: UserRow, mode: MfaMode): Promise<MfaChallengeBody> {
  const open = await openChallenge(deps.db, user.id, mode, deps.clock.now());
  if (mode === 'app') {
    return { mode, mfaVerifyToken: open.token, message: 'Enter the 6-digit code from your authenticator app' };
  }
  const text = `Your TARS sign-in code is ${open.code}. It expires in 5 minutes.`;
  try {
    if (mode === 'email') {
      await deps.mailer.send({ to: user.email, subject: 'Your TARS sign-in code', text });
    } else {
      await deps.sms.send(user.mfa_phone_number, text);
    }
  } catch (err) {
    await closeChallenge(deps.db, open.token);
    throw err instanceof AppError ? err : unavailable(`The sign-in code could not be sent ${mode === 'email' ? 'by e-mail' : 'by SMS'}`);
  }
  if (mode === 'email') return { mode, mfaVerifyToken: open.token, message: 'A 6-digit code was sent by e-mail' };
  return {
    mode,
    mfaVerifyToken: open.token,
    message: 'A 6-digit code was sent by SMS',
    phoneNumber: maskPhone(user.mfa_phone_number),
  };
}

/** POST /v2/mfa/setup: a user enrolling before it signs in (its mfaSetupToken) sets a mode up. */
export async function setupWithToken(deps: AuthDeps, input: { token: string; mode: MfaMode; phoneNumber?: string }): Promise<SetupAnswer> {
  const user = await setupUser(deps, input.token);
  return { ...(await setupMode(deps, user, input.mode, input.phoneNumber)), mfaVerifyToken: input.token };
}

/** POST /v2/mfa/verify: the first right code switches MFA on and signs the user in; the set-up token dies. */
export async function verifyWithToken(
  deps: AuthDeps,
  input: { token: string; mode: MfaMode; otp: string; secret?: string; phoneNumber?: string },
): Promise<AuthResult> {
  const user = await setupUser(deps, input.token);
  await verifyMode(deps, user, input.mode, input.otp, input);
  await closeChallenge(deps.db, input.token);
  const fresh = await findUserById(deps.db, user.id);
  if (!fresh) throw notAuthenticated(BAD_CODE);
  return issue(deps, fresh);
}

/**
 * The user of a set-up token, while it has no MFA: the token was given for a password alone, so once a mode is on
 * (set up with this token or another, or in any other way) it sets nothing up, or whoever else had the password
 * could replace the factor.
 */
async function setupUser(deps: AuthDeps, token: string): Promise<UserRow> {
  const open = await findChallenge(deps.db, token, deps.clock.now());
  const user = open?.mode === 'setup' ? await findUserById(deps.db, open.userId) : undefined;
  if (!user || user.mfa_enabled === 1) throw notAuthenticated('Invalid or expired MFA set-up token: sign in again');
  return user;
}

/** GET /v2/users/me: the signed-in user as a sign-in returns it. */
export async function me(deps: Pick<AuthDeps, 'db'>, caller: Pick<Caller, 'user'>): Promise<ApiUser> {
  const user = await findUserById(deps.db, caller.user.id);
  if (!user) throw notAuthenticated('Missing, invalid or expired access token');
  return userObject(deps, user, { withPeerSecret: true });
}

async function issue(deps: AuthDeps, user: UserRow): Promise<AuthResult> {
  return {
    user: await userObject(deps, user, { withPeerSecret: true }),
    accessToken: deps.tokens.issue({ uid: user.id, ver: user.token_version }),
  };
}

/**
 * The User object of a user row, with its effective permissions and its branch's name: a sign-in's is the caller's
 * own, so with its SIP password (withPeerSecret); the users admin's is without (decisions.md §3).
 */
export async function userObject(deps: Pick<AuthDeps, 'db'>, user: UserRow, view: { withPeerSecret: boolean }): Promise<ApiUser> {
  const caller = await callerOf(deps.db, user);
  return toApiUser(user, {
    branchName: await branchName(deps.db, scopeOfStoredRow(user), user.branch_id),
    permissions: [...caller.permissions].sort(),
    withPeerSecret: view.withPeerSecret,
  });
}
