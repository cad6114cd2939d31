import { sql } from 'kysely';
import type { Caller } from '../../access/caller';
import type { AppDeps } from '../../deps';
import type { Updateable } from 'kysely';
import type { UserRow, UserTable } from '../../db/schema';
import { AppError, badRequest, notAuthenticated, unavailable } from '../../errors';
import { findUserById, recordTotpStep } from '../users/users.repository';
import { dropEnrolment, findEnrolment, saveEnrolment, tenantRequiresMfa, type Enrolment } from './account.repository';
import { BAD_CODE, countAttempt, throttled } from './attempt-limits';
import { codeMatches, maskPhone, newCode, newTotpSecret, openConfirmation, otpauthUri, totpStep, type MfaMode } from './mfa';
import { requirePresence, type PresenceProof } from './presence';
import { mfaCodeRule, mfaResendRule } from './throttle';

/** How long a mode set up waits for its first right code. */
export const ENROLMENT_TTL_MS = 10 * 60 * 1000;

/** POST /v2/mfa/setup and /v2/mfa/auth/setup (the app's MFASetupResponse). */
export interface SetupAnswer {
  mode: MfaMode;
  mfaVerifyToken?: string;
  phoneNumber?: string;
  secret?: string;
  qrcode?: string;
}

/** The app's MFAToggleResponse; after a change of a factor, a token for the client that made it (its other tokens ended). */
export interface ToggleAnswer {
  status: 'success';
  message: string;
  accessToken?: string;
}

type Deps = Pick<AppDeps, 'database' | 'clock' | 'mailer' | 'sms' | 'tokens'>;

const MODE_NAMES: Record<MfaMode, string> = { app: 'an authenticator app', email: 'e-mail', sms: 'SMS' };

/**
 * MFA enrolment and management (issue 19). A mode is set up (a TOTP secret shown once as text and QR code, or a
 * code sent to the phone number or e-mail address to be verified), waits in mfa_enrolments, and is switched on
 * only by its first right code; every code checked here counts against the same per-user limit as a sign-in code.
 * Setting a mode up, turning MFA off and removing a mode need proof that the owner is present (./presence.ts); a
 * change of a factor ends the user's other tokens and answers with a fresh one for the client that made it.
 */
export class EnrolmentService {
  constructor(private readonly deps: Deps) {}

  private get db() {
    return this.deps.database.db;
  }

  private get presence() {
    return { db: this.deps.database.db, clock: this.deps.clock };
  }

  /** POST /v2/mfa/auth/setup: a signed-in user sets a mode up, with proof that it is the owner. */
  async setupProven(user: UserRow, mode: MfaMode, phoneNumber: string | undefined, proof: PresenceProof): Promise<SetupAnswer> {
    if (mode === 'sms' && !phoneNumber) throw badRequest('phoneNumber is required to set up MFA by SMS');
    await requirePresence(this.presence, user, proof);
    return this.setup(user, mode, phoneNumber);
  }

  /** Sets a mode up for a user whose presence was proved (the proof above, or the set-up token of a sign-in). */
  async setup(user: UserRow, mode: MfaMode, phoneNumber: string | undefined): Promise<SetupAnswer> {
    const now = this.deps.clock.now();
    const expires_at = now + ENROLMENT_TTL_MS;
    if (mode === 'app') {
      const secret = newTotpSecret();
      await saveEnrolment(this.db, { user_id: user.id, mode, secret, phone_number: '', code_hash: null, expires_at });
      // Loaded when first needed: only enrolment draws a QR code, and loading it took 1 ms of every start.
      const { default: QRCode } = await import('qrcode');
      return { mode, secret, qrcode: await QRCode.toDataURL(otpauthUri(user.email, secret)) };
    }
    if (mode === 'sms' && !phoneNumber) throw badRequest('phoneNumber is required to set up MFA by SMS');
    // Every code sent counts against the user's hourly limit of new codes.
    await countAttempt({ db: this.db, clock: this.deps.clock }, [mfaResendRule(user.id)]);
    const { code, hash } = newCode();
    const phone = mode === 'sms' ? (phoneNumber as string) : '';
    await saveEnrolment(this.db, { user_id: user.id, mode, secret: '', phone_number: phone, code_hash: hash, expires_at });
    await this.send(user, mode, phone, code);
    return mode === 'sms' ? { mode, phoneNumber: maskPhone(phone) } : { mode };
  }

  /** A new code for a mode waiting to be verified. */
  async resend(user: UserRow, mode: MfaMode): Promise<{ status: 'success'; mode: MfaMode; mfaVerifyToken: string; message: string }> {
    const waiting = await findEnrolment(this.db, user.id, mode, this.deps.clock.now());
    if (!waiting || mode === 'app') throw badRequest(`No set-up of MFA by ${MODE_NAMES[mode]} is waiting for a code: start with setup`);
    await this.setup(user, mode, waiting.phone_number || undefined);
    return { status: 'success', mode, mfaVerifyToken: '', message: `A new 6-digit code was sent by ${MODE_NAMES[mode]}` };
  }

  /**
   * Checks the first code of a mode set up and switches MFA on with it; 401 for a wrong code. The set-up waiting was
   * made with proof of presence, and the code proves the new factor is the owner's; the user's other tokens end.
   */
  async verify(user: UserRow, mode: MfaMode, otp: string, given: { secret?: string; phoneNumber?: string }): Promise<ToggleAnswer> {
    const now = this.deps.clock.now();
    const waiting = await findEnrolment(this.db, user.id, mode, now);
    if (!waiting) throw badRequest(`No set-up of MFA by ${MODE_NAMES[mode]} is waiting: start with setup`);
    if (given.secret !== undefined && given.secret !== waiting.secret) throw badRequest('secret is not the one of this set-up');
    if (given.phoneNumber !== undefined && given.phoneNumber !== waiting.phone_number && mode === 'sms')
      throw badRequest('phoneNumber is not the one the code was sent to');
    const ok = await throttled({ db: this.db, clock: this.deps.clock }, [mfaCodeRule(user.id)], () =>
      this.codeIsRight(user, waiting, otp, now),
    );
    if (!ok) throw notAuthenticated(BAD_CODE);
    const version = await this.db.transaction().execute(async (trx) => {
      const verified =
        mode === 'app'
          ? { mfa_app_secret: waiting.secret, mfa_app_verified: 1 }
          : mode === 'sms'
            ? { mfa_phone_number: waiting.phone_number, mfa_sms_verified: 1 }
            : { mfa_email_verified: 1 };
      const { token_version } = await trx
        .updateTable('users')
        .set({ ...verified, mfa_enabled: 1, mfa_mode: mode, token_version: sql<number>`token_version + 1` })
        .where('id', '=', user.id)
        .returning('token_version')
        .executeTakeFirstOrThrow();
      await trx.deleteFrom('mfa_enrolments').where('user_id', '=', user.id).where('mode', '=', mode).execute();
      // Set-up tokens were given for the password alone: with a factor on, none may set another up.
      await trx.deleteFrom('mfa_challenges').where('user_id', '=', user.id).where('mode', '=', 'setup').execute();
      return token_version;
    });
    return { status: 'success', message: `MFA by ${MODE_NAMES[mode]} is verified and on`, accessToken: this.tokenOf(user, version) };
  }

  /** Switches MFA on with a mode already verified. */
  async enable(user: UserRow, mode: MfaMode): Promise<ToggleAnswer> {
    if (!isVerified(user, mode)) throw badRequest(`MFA by ${MODE_NAMES[mode]} is not verified yet: set it up and verify it first`);
    await this.db.updateTable('users').set({ mfa_enabled: 1, mfa_mode: mode }).where('id', '=', user.id).execute();
    return { status: 'success', message: `MFA by ${MODE_NAMES[mode]} is on` };
  }

  /** Turns MFA off (its verified modes stay, to be switched on again); refused while the tenant requires MFA. */
  async disable(user: UserRow, proof: PresenceProof): Promise<ToggleAnswer> {
    await requirePresence(this.presence, user, proof);
    if (await tenantRequiresMfa(this.db, user.tenant_id))
      throw new AppError(409, 'Your organisation requires MFA: it cannot be turned off');
    const version = await this.change(user.id, { mfa_enabled: 0 });
    return { status: 'success', message: 'MFA is off', accessToken: this.tokenOf(user, version) };
  }

  /** Forgets one mode; when it was the one in use, another verified mode takes over, or MFA goes off. */
  async disableMode(user: UserRow, mode: MfaMode, proof: PresenceProof): Promise<ToggleAnswer> {
    await requirePresence(this.presence, user, proof);
    const rest = (['app', 'sms', 'email'] as const).filter((m) => m !== mode && isVerified(user, m));
    const inUse = user.mfa_enabled === 1 && user.mfa_mode === mode;
    if (inUse && rest.length === 0 && (await tenantRequiresMfa(this.db, user.tenant_id)))
      throw new AppError(409, 'Your organisation requires MFA: its last mode cannot be removed');
    const forgotten =
      mode === 'app'
        ? { mfa_app_secret: '', mfa_app_verified: 0 }
        : mode === 'sms'
          ? { mfa_phone_number: '', mfa_sms_verified: 0 }
          : { mfa_email_verified: 0 };
    const next = inUse ? (rest[0] !== undefined ? { mfa_mode: rest[0] } : { mfa_enabled: 0 }) : {};
    const version = await this.change(user.id, { ...forgotten, ...next });
    await dropEnrolment(this.db, user.id, mode);
    return {
      status: 'success',
      message: `MFA by ${MODE_NAMES[mode]} is removed${'mfa_enabled' in next ? '; MFA is off' : ''}`,
      accessToken: this.tokenOf(user, version),
    };
  }

  /**
   * POST /v2/mfa/auth/confirmation-code: a code to prove presence with (./presence.ts), sent by a mode in use to
   * the phone number or address verified for it, never to one the request names; in the count of new codes.
   */
  async sendConfirmation(user: UserRow, mode: 'email' | 'sms'): Promise<ToggleAnswer> {
    if (user.mfa_enabled !== 1 || !isVerified(user, mode))
      throw badRequest(`MFA by ${MODE_NAMES[mode]} is not in use on this account: confirm with your password instead`);
    await countAttempt({ db: this.db, clock: this.deps.clock }, [mfaResendRule(user.id)]);
    const code = await openConfirmation(this.db, user.id, this.deps.clock.now());
    const text = `Your TARS confirmation code is ${code}. It expires in 5 minutes. If you did not ask for it, change your password.`;
    try {
      if (mode === 'email') await this.deps.mailer.send({ to: user.email, subject: 'Your TARS confirmation code', text });
      else await this.deps.sms.send(user.mfa_phone_number, text);
    } catch (err) {
      throw err instanceof AppError ? err : unavailable(`The confirmation code could not be sent by ${MODE_NAMES[mode]}`);
    }
    return { status: 'success', message: `A 6-digit confirmation code was sent by ${MODE_NAMES[mode]}` };
  }

  /** Changes MFA columns of the user and ends its tokens (one statement); the new credentials version. */
  private async change(userId: number, set: Updateable<UserTable>): Promise<number> {
    const { token_version } = await this.db
      .updateTable('users')
      .set({ ...set, token_version: sql<number>`token_version + 1` })
      .where('id', '=', userId)
      .returning('token_version')
      .executeTakeFirstOrThrow();
    return token_version;
  }

  private tokenOf(user: UserRow, version: number): string {
    return this.deps.tokens.issue({ uid: user.id, ver: version });
  }

  private async codeIsRight(user: UserRow, waiting: Enrolment, otp: string, now: number): Promise<boolean> {
    if (waiting.mode !== 'app') return waiting.code_hash !== null && codeMatches(waiting.code_hash, otp);
    const step = totpStep(waiting.secret, otp, now);
    return step !== null && (await recordTotpStep(this.db, user.id, step));
  }

  private async send(user: UserRow, mode: MfaMode, phone: string, code: string): Promise<void> {
    const text = `Your TARS verification code is ${code}. It expires in 10 minutes.`;
    try {
      if (mode === 'email') await this.deps.mailer.send({ to: user.email, subject: 'Your TARS verification code', text });
      else await this.deps.sms.send(phone, text);
    } catch (err) {
      await dropEnrolment(this.db, user.id, mode);
      throw err instanceof AppError ? err : unavailable(`The verification code could not be sent by ${MODE_NAMES[mode]}`);
    }
  }

  /** The signed-in user's row, fresh. */
  async userOf(caller: Caller): Promise<UserRow> {
    const user = await findUserById(this.db, caller.user.id);
    if (!user) throw notAuthenticated('Missing, invalid or expired access token');
    return user;
  }
}

export function isVerified(user: UserRow, mode: MfaMode): boolean {
  if (mode === 'app') return user.mfa_app_verified === 1 && user.mfa_app_secret !== '';
  if (mode === 'sms') return user.mfa_sms_verified === 1 && user.mfa_phone_number !== '';
  return user.mfa_email_verified === 1;
}
