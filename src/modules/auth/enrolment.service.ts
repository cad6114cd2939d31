import type { Caller } from '../../access/caller';
import type { Clock } from '../../clock';
import { transaction, type Db } from '../../db/database';
import type { UserRow } from '../../db/schema';
import { AppError, badRequest, notAuthenticated, notFound, unavailable } from '../../errors';
import type { ResponseBody } from '../../http/route';
import type { Mailer } from '../../mail/mailer';
import type { SmsGateway } from '../../mail/sms';
import { dropEnrolment, findEnrolment, saveEnrolment, tenantRequiresMfa, type Enrolment } from './account.repository';
import { BAD_CODE, countAttempt, throttled } from './attempt-limits';
import { changeMfa, clearMfa, enableMfa, findUserById, recordTotpStep, switchMfaOn, type MfaColumns } from './credentials.repository';
import { codeMatches, maskPhone, newCode, newTotpSecret, openConfirmation, otpauthUri, totpStep, type MfaMode } from './mfa';
import { requirePresence, type PresenceProof } from './presence';
import { mfaCodeRule, mfaResendRule } from './throttle';
import type { TokenService } from './tokens';

/** How long a mode set up waits for its first right code. */
export const ENROLMENT_TTL_MS = 10 * 60 * 1000;

/** POST /v2/mfa/setup and /v2/mfa/auth/setup (the app's MFASetupResponse). */
export type SetupAnswer = ResponseBody<'mfa-setup-response'>;
/** The app's MFAToggleResponse; after a change of a factor, a token for the client that made it (its other tokens ended). */
export type ToggleAnswer = ResponseBody<'mfa-toggle-response'>;
/** POST /v2/mfa/auth/resend-otp. */
export type ResendAnswer = ResponseBody<'mfa-resend-response'>;

/** What MFA enrolment uses (docs/architecture.md, "The service shape"): codes go out by e-mail or SMS. */
export interface EnrolmentDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly tokens: Pick<TokenService, 'issue'>;
  readonly mailer: Mailer;
  readonly sms: SmsGateway;
}

const MODE_NAMES: Record<MfaMode, string> = { app: 'an authenticator app', email: 'e-mail', sms: 'SMS' };

/*
 * MFA enrolment and management (issue 19). A mode is set up (a TOTP secret shown once as text and QR code, or a
 * code sent to the phone number or e-mail address to be verified), waits in mfa_enrolments, and is switched on
 * only by its first right code; every code checked here counts against the same per-user limit as a sign-in code.
 * Setting a mode up, turning MFA off and removing a mode need proof that the owner is present (./presence.ts); a
 * change of a factor ends the user's other tokens and answers with a fresh one for the client that made it. The
 * functions with a caller act on the signed-in user (POST /v2/mfa/auth/...); the others are the steps the sign-in's
 * set-up token uses too (./auth.service.ts).
 */

/** The signed-in user's row, fresh. */
async function ownRow(deps: Pick<EnrolmentDeps, 'db'>, caller: Caller): Promise<UserRow> {
  const user = await findUserById(deps.db, caller.user.id);
  if (!user) throw notAuthenticated('Missing, invalid or expired access token');
  return user;
}

/** POST /v2/mfa/auth/setup: a signed-in user sets a mode up, with proof that it is the owner. */
export async function setupOwnMode(
  deps: EnrolmentDeps,
  caller: Caller,
  input: { mode: MfaMode; phoneNumber?: string } & PresenceProof,
): Promise<SetupAnswer> {
  const user = await ownRow(deps, caller);
  if (input.mode === 'sms' && !input.phoneNumber) throw badRequest('phoneNumber is required to set up MFA by SMS');
  await requirePresence(deps, user, input);
  return setupMode(deps, user, input.mode, input.phoneNumber);
}

/** Sets a mode up for a user whose presence was proved (the proof above, or the set-up token of a sign-in). */
export async function setupMode(deps: EnrolmentDeps, user: UserRow, mode: MfaMode, phoneNumber: string | undefined): Promise<SetupAnswer> {
  const now = deps.clock.now();
  const expires_at = now + ENROLMENT_TTL_MS;
  if (mode === 'app') {
    const secret = newTotpSecret();
    await saveEnrolment(deps.db, { user_id: user.id, mode, secret, phone_number: '', code_hash: null, expires_at });
    // Loaded when first needed: only enrolment draws a QR code, and loading it took 1 ms of every start.
    const { default: QRCode } = await import('qrcode');
    return { mode, secret, qrcode: await QRCode.toDataURL(otpauthUri(user.email, secret)) };
  }
  if (mode === 'sms' && !phoneNumber) throw badRequest('phoneNumber is required to set up MFA by SMS');
  // Every code sent counts against the user's hourly limit of new codes.
  await countAttempt(deps, [mfaResendRule(user.id)]);
  const { code, hash } = newCode();
  const phone = mode === 'sms' ? (phoneNumber as string) : '';
  await saveEnrolment(deps.db, { user_id: user.id, mode, secret: '', phone_number: phone, code_hash: hash, expires_at });
  await send(deps, user, mode, phone, code);
  return mode === 'sms' ? { mode, phoneNumber: maskPhone(phone) } : { mode };
}

/** POST /v2/mfa/auth/resend-otp: a new code for a mode of the signed-in user waiting to be verified. */
export async function resendOwnCode(deps: EnrolmentDeps, caller: Caller, mode: MfaMode): Promise<ResendAnswer> {
  return resendSetupCode(deps, await ownRow(deps, caller), mode);
}

/** A new code for a mode waiting to be verified. */
export async function resendSetupCode(deps: EnrolmentDeps, user: UserRow, mode: MfaMode): Promise<ResendAnswer> {
  const waiting = await findEnrolment(deps.db, user.id, mode, deps.clock.now());
  if (!waiting || mode === 'app') throw badRequest(`No set-up of MFA by ${MODE_NAMES[mode]} is waiting for a code: start with setup`);
  await setupMode(deps, user, mode, waiting.phone_number || undefined);
  return { status: 'success', mode, mfaVerifyToken: '', message: `A new 6-digit code was sent by ${MODE_NAMES[mode]}` };
}

/** POST /v2/mfa/auth/verify: the first code of a mode the signed-in user set up. */
export async function verifyOwnMode(
  deps: EnrolmentDeps,
  caller: Caller,
  input: { mode: MfaMode; otp: string; secret?: string; phoneNumber?: string },
): Promise<ToggleAnswer> {
  return verifyMode(deps, await ownRow(deps, caller), input.mode, input.otp, input);
}

/**
 * Checks the first code of a mode set up and switches MFA on with it; 401 for a wrong code. The set-up waiting was
 * made with proof of presence, and the code proves the new factor is the owner's; the user's other tokens end.
 */
export async function verifyMode(
  deps: EnrolmentDeps,
  user: UserRow,
  mode: MfaMode,
  otp: string,
  given: { secret?: string; phoneNumber?: string },
): Promise<ToggleAnswer> {
  const now = deps.clock.now();
  const waiting = await findEnrolment(deps.db, user.id, mode, now);
  if (!waiting) throw badRequest(`No set-up of MFA by ${MODE_NAMES[mode]} is waiting: start with setup`);
  if (given.secret !== undefined && given.secret !== waiting.secret) throw badRequest('secret is not the one of this set-up');
  if (given.phoneNumber !== undefined && given.phoneNumber !== waiting.phone_number && mode === 'sms')
    throw badRequest('phoneNumber is not the one the code was sent to');
  const ok = await throttled(deps, [mfaCodeRule(user.id)], () => codeIsRight(deps, user, waiting, otp, now));
  if (!ok) throw notAuthenticated(BAD_CODE);
  const verified: MfaColumns =
    mode === 'app'
      ? { mfa_app_secret: waiting.secret, mfa_app_verified: 1 }
      : mode === 'sms'
        ? { mfa_phone_number: waiting.phone_number, mfa_sms_verified: 1 }
        : { mfa_email_verified: 1 };
  const version = await transaction(deps.db, (trx) => switchMfaOn(trx, user.id, mode, verified));
  return { status: 'success', message: `MFA by ${MODE_NAMES[mode]} is verified and on`, accessToken: tokenOf(deps, user, version) };
}

/** POST /v2/mfa/auth/enable: switches MFA on with a mode already verified. */
export async function enableMode(deps: Pick<EnrolmentDeps, 'db'>, caller: Caller, mode: MfaMode): Promise<ToggleAnswer> {
  const user = await ownRow(deps, caller);
  if (!isVerified(user, mode)) throw badRequest(`MFA by ${MODE_NAMES[mode]} is not verified yet: set it up and verify it first`);
  await enableMfa(deps.db, user.id, mode);
  return { status: 'success', message: `MFA by ${MODE_NAMES[mode]} is on` };
}

/** POST /v2/mfa/auth/disable: turns MFA off (its verified modes stay, to be switched on again); refused while the tenant requires MFA. */
export async function disableMfa(deps: EnrolmentDeps, caller: Caller, proof: PresenceProof): Promise<ToggleAnswer> {
  const user = await ownRow(deps, caller);
  await requirePresence(deps, user, proof);
  if (await tenantRequiresMfa(deps.db, user.tenant_id)) throw new AppError(409, 'Your organisation requires MFA: it cannot be turned off');
  const version = await changeMfa(deps.db, user.id, { mfa_enabled: 0 });
  return { status: 'success', message: 'MFA is off', accessToken: tokenOf(deps, user, version) };
}

/** POST /v2/mfa/auth/disable-mode: forgets one mode; when it was the one in use, another verified mode takes over, or MFA goes off. */
export async function removeMode(deps: EnrolmentDeps, caller: Caller, mode: MfaMode, proof: PresenceProof): Promise<ToggleAnswer> {
  const user = await ownRow(deps, caller);
  await requirePresence(deps, user, proof);
  const rest = (['app', 'sms', 'email'] as const).filter((m) => m !== mode && isVerified(user, m));
  const inUse = user.mfa_enabled === 1 && user.mfa_mode === mode;
  if (inUse && rest.length === 0 && (await tenantRequiresMfa(deps.db, user.tenant_id)))
    throw new AppError(409, 'Your organisation requires MFA: its last mode cannot be removed');
  const forgotten: MfaColumns =
    mode === 'app'
      ? { mfa_app_secret: '', mfa_app_verified: 0 }
      : mode === 'sms'
        ? { mfa_phone_number: '', mfa_sms_verified: 0 }
        : { mfa_email_verified: 0 };
  const next: MfaColumns = inUse ? (rest[0] !== undefined ? { mfa_mode: rest[0] } : { mfa_enabled: 0 }) : {};
  const version = await changeMfa(deps.db, user.id, { ...forgotten, ...next });
  await dropEnrolment(deps.db, user.id, mode);
  return {
    status: 'success',
    message: `MFA by ${MODE_NAMES[mode]} is removed${'mfa_enabled' in next ? '; MFA is off' : ''}`,
    accessToken: tokenOf(deps, user, version),
  };
}

/**
 * POST /v2/mfa/auth/confirmation-code: a code to prove presence with (./presence.ts), sent by a mode in use to
 * the phone number or address verified for it, never to one the request names; in the count of new codes.
 */
export async function sendConfirmation(deps: EnrolmentDeps, caller: Caller, mode: 'email' | 'sms'): Promise<ToggleAnswer> {
  const user = await ownRow(deps, caller);
  if (user.mfa_enabled !== 1 || !isVerified(user, mode))
    throw badRequest(`MFA by ${MODE_NAMES[mode]} is not in use on this account: confirm with your password instead`);
  await countAttempt(deps, [mfaResendRule(user.id)]);
  const code = await openConfirmation(deps.db, user.id, deps.clock.now());
  const text = `Your TARS confirmation code is ${code}. It expires in 5 minutes. If you did not ask for it, change your password.`;
  try {
    if (mode === 'email') await deps.mailer.send({ to: user.email, subject: 'Your TARS confirmation code', text });
    else await deps.sms.send(user.mfa_phone_number, text);
  } catch (err) {
    throw err instanceof AppError ? err : unavailable(`The confirmation code could not be sent by ${MODE_NAMES[mode]}`);
  }
  return { status: 'success', message: `A 6-digit confirmation code was sent by ${MODE_NAMES[mode]}` };
}

function tokenOf(deps: Pick<EnrolmentDeps, 'tokens'>, user: UserRow, version: number): string {
  return deps.tokens.issue({ uid: user.id, ver: version });
}

async function codeIsRight(deps: EnrolmentDeps, user: UserRow, waiting: Enrolment, otp: string, now: number): Promise<boolean> {
  if (waiting.mode !== 'app') return waiting.code_hash !== null && codeMatches(waiting.code_hash, otp);
  const step = totpStep(waiting.secret, otp, now);
  return step !== null && (await recordTotpStep(deps.db, user.id, step));
}

async function send(deps: EnrolmentDeps, user: UserRow, mode: MfaMode, phone: string, code: string): Promise<void> {
  const text = `Your TARS verification code is ${code}. It expires in 10 minutes.`;
  try {
    if (mode === 'email') await deps.mailer.send({ to: user.email, subject: 'Your TARS verification code', text });
    else await deps.sms.send(phone, text);
  } catch (err) {
    await dropEnrolment(deps.db, user.id, mode);
    throw err instanceof AppError ? err : unavailable(`The verification code could not be sent by ${MODE_NAMES[mode]}`);
  }
}

export function isVerified(user: UserRow, mode: MfaMode): boolean {
  if (mode === 'app') return user.mfa_app_verified === 1 && user.mfa_app_secret !== '';
  if (mode === 'sms') return user.mfa_sms_verified === 1 && user.mfa_phone_number !== '';
  return user.mfa_email_verified === 1;
}

/**
 * An admin's MFA reset of a user of its scope (POST /v2/admin/users/{id}/mfa-reset), for one who lost its phone or
 * authenticator: every mode is forgotten and its tokens end. Its next sign-in asks for the password only, or takes it
 * through enrolment when its tenant requires MFA. The caller's right over the user is checked by users-admin.
 */
export async function resetMfaOf(deps: Pick<EnrolmentDeps, 'db'>, caller: Caller, user: UserRow): Promise<ResponseBody<'status-response'>> {
  const done = await transaction(deps.db, (trx) => clearMfa(trx, caller.scope, user.id));
  if (!done) throw notFound(`User ${user.id}`);
  const required = await tenantRequiresMfa(deps.db, user.tenant_id);
  return {
    status: 'success',
    message: `MFA of ${user.email} is reset: every mode is forgotten and its sessions ended; ${
      required ? 'its organisation requires MFA, so its next sign-in sets a mode up again' : 'its next sign-in asks for the password only'
    }`,
  };
}
