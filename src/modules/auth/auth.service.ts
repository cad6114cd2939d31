import type { AppDeps } from '../../deps';
import type { UserRow } from '../../db/schema';
import { AppError, badRequest, notAuthenticated, unavailable } from '../../errors';
import { callerOf, resolveCaller } from '../../access/caller';
import { scopeOfStoredRow } from '../../access/scope';
import { branchName, findUserByEmail, findUserById, recordTotpStep } from '../users/users.repository';
import { toApiUser, type ApiUser } from '../users/user';
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
import { BAD_CODE, countAttempt, refuseWhenFull, throttled } from './attempt-limits';
import { loginRules, mfaCodeRule, mfaResendRule } from './throttle';
import { tenantRequiresMfa } from './account.repository';
import { EnrolmentService, type SetupAnswer } from './enrolment';

export interface AuthResult {
  user: ApiUser;
  accessToken: string;
}

export interface MfaChallengeBody {
  mode: MfaMode;
  mfaVerifyToken: string;
  message: string;
  /** SMS only: where the code went, all but its last 4 digits masked. */
  phoneNumber?: string;
}

/** A user of a tenant that requires MFA, without MFA yet: it enrols with this token before it gets an access token. */
export interface MfaSetupBody {
  mfaSetupToken: string;
  message: string;
}

const BAD_CREDENTIALS = 'Invalid e-mail or password';

type Deps = Pick<AppDeps, 'database' | 'tokens' | 'clock' | 'mailer' | 'sms'>;

const SETUP_REQUIRED = 'Your organisation requires MFA: set it up through POST /v2/authentication/mfa';

export class AuthService {
  readonly enrolment: EnrolmentService;

  constructor(private readonly deps: Deps) {
    this.enrolment = new EnrolmentService(deps);
  }

  private get db() {
    return this.deps.database.db;
  }

  /** POST /v2/authentication/: password only. An MFA user is sent to /v2/authentication/mfa. */
  async login(email: string, password: string, ip: string): Promise<AuthResult> {
    const user = await this.checkPassword(email, password, ip);
    if (user.mfa_enabled === 1) {
      throw notAuthenticated('Multi-factor authentication is enabled for this account: log in through POST /v2/authentication/mfa');
    }
    if (await tenantRequiresMfa(this.db, user.tenant_id)) throw notAuthenticated(SETUP_REQUIRED);
    return this.issue(user);
  }

  /** POST /v2/authentication/mfa: the user when MFA is off, else a challenge (and the code sent by e-mail/SMS). */
  async loginMfa(email: string, password: string, ip: string): Promise<AuthResult | MfaChallengeBody | MfaSetupBody> {
    const user = await this.checkPassword(email, password, ip);
    if (user.mfa_enabled !== 1) {
      if (!(await tenantRequiresMfa(this.db, user.tenant_id))) return this.issue(user);
      const setup = await openChallenge(this.db, user.id, 'setup', this.deps.clock.now());
      return {
        mfaSetupToken: setup.token,
        message: 'Your organisation requires MFA: set it up with POST /v2/mfa/setup (the token lives 5 minutes)',
      };
    }
    const mode = (MFA_MODES as readonly string[]).includes(user.mfa_mode) ? (user.mfa_mode as MfaMode) : 'app';
    return this.challenge(user, mode);
  }

  /** POST /v2/mfa/validate. Every code takes its place in the user's count of wrong codes first: past the limit, 429 whatever the code. */
  async validate(token: string, otp: string): Promise<AuthResult> {
    const challenge = await findChallenge(this.db, token, this.deps.clock.now());
    if (!challenge || challenge.mode === 'setup' || challenge.mode === 'confirm') throw notAuthenticated(BAD_CODE);
    const user = await findUserById(this.db, challenge.userId);
    if (!user) throw notAuthenticated(BAD_CODE);
    const ok = await throttled({ db: this.db, clock: this.deps.clock }, [mfaCodeRule(user.id)], () =>
      this.codeIsRight(user, challenge, otp, this.deps.clock.now()),
    );
    if (!ok) {
      await countWrongCode(this.db, token);
      throw notAuthenticated(BAD_CODE);
    }
    await closeChallenge(this.db, token);
    return this.issue(user);
  }

  private async codeIsRight(user: UserRow, challenge: OpenChallenge, otp: string, now: number): Promise<boolean> {
    if (challenge.mode !== 'app') return challenge.codeHash !== null && codeMatches(challenge.codeHash, otp);
    const step = totpStep(user.mfa_app_secret, otp, now);
    // A code is accepted once: its step must be newer than the last one that succeeded.
    return step !== null && (await recordTotpStep(this.db, user.id, step));
  }

  /**
   * POST /v2/mfa/resend-otp: a new challenge (and code) for an open one; the old token dies. The app sends the
   * phone number it shows: the code still goes only to the number on the account (or being set up).
   */
  async resend(token: string, mode: MfaMode | undefined): Promise<MfaChallengeBody> {
    const challenge = await findChallenge(this.db, token, this.deps.clock.now());
    if (!challenge || challenge.mode === 'confirm') throw notAuthenticated(BAD_CODE);
    const user = await findUserById(this.db, challenge.userId);
    if (!user) throw notAuthenticated(BAD_CODE);
    if (challenge.mode === 'setup') {
      if (user.mfa_enabled === 1) throw notAuthenticated('Invalid or expired MFA set-up token: sign in again');
      if (!mode) throw badRequest('mode is required to resend the code of a set-up');
      const sent = await this.enrolment.resend(user, mode);
      return { mode, mfaVerifyToken: token, message: sent.message };
    }
    const next = mode ?? challenge.mode;
    if (!modeAllowed(user, next)) throw badRequest(`mode "${next}" is not set up for this account`);
    // A new challenge never resets the count of wrong codes, and new codes are limited themselves.
    await refuseWhenFull(this.db, mfaCodeRule(user.id), this.deps.clock.now());
    await countAttempt({ db: this.db, clock: this.deps.clock }, [mfaResendRule(user.id)]);
    await closeChallenge(this.db, token);
    return this.challenge(user, next);
  }

  /**
   * POST /v2/authentication/jwt: a still-valid token buys a fresh one, on the terms of a sign-in: a user without MFA
   * of a tenant that requires it gets none (setting mfaRequired ends such tokens; this holds too when the tenant's
   * row changed some other way), whenever its token was issued.
   */
  async refresh(accessToken: string): Promise<AuthResult> {
    const caller = await resolveCaller(this.db, this.deps.tokens, accessToken);
    // The whole row for the response, still of the credentials the token was checked against.
    const user = await findUserById(this.db, caller.user.id);
    if (!user || user.token_version !== caller.user.token_version) throw notAuthenticated('Missing, invalid or expired access token');
    if (user.mfa_enabled !== 1 && (await tenantRequiresMfa(this.db, user.tenant_id))) throw notAuthenticated(SETUP_REQUIRED);
    return this.issue(user);
  }

  private async checkPassword(email: string, password: string, ip: string): Promise<UserRow> {
    // The attempt counts from before the hash: a burst of parallel requests evaluates at most the limit.
    const user = await throttled({ db: this.db, clock: this.deps.clock }, loginRules(email, ip), async () => {
      const found = await findUserByEmail(this.db, email);
      // Hash even when the e-mail is unknown, so the answer takes as long either way.
      return (await verifyPassword(password, found?.password_hash ?? (await dummyHash()))) ? found : undefined;
    });
    if (!user) throw notAuthenticated(BAD_CREDENTIALS);
    return user;
  }

  private async challenge(user: UserRow, mode: MfaMode): Promise<MfaChallengeBody> {
    const challenge = await openChallenge(this.db, user.id, mode, this.deps.clock.now());
    if (mode === 'app') {
      return { mode, mfaVerifyToken: challenge.token, message: 'Enter the 6-digit code from your authenticator app' };
    }
    const text = `Your TARS sign-in code is ${challenge.code}. It expires in 5 minutes.`;
    try {
      if (mode === 'email') {
        await this.deps.mailer.send({ to: user.email, subject: 'Your TARS sign-in code', text });
      } else {
        await this.deps.sms.send(user.mfa_phone_number, text);
      }
    } catch (err) {
      await closeChallenge(this.db, challenge.token);
      throw err instanceof AppError ? err : unavailable(`The sign-in code could not be sent ${mode === 'email' ? 'by e-mail' : 'by SMS'}`);
    }
    if (mode === 'email') return { mode, mfaVerifyToken: challenge.token, message: 'A 6-digit code was sent by e-mail' };
    return {
      mode,
      mfaVerifyToken: challenge.token,
      message: 'A 6-digit code was sent by SMS',
      phoneNumber: maskPhone(user.mfa_phone_number),
    };
  }

  /** POST /v2/mfa/setup: a user enrolling before it signs in (its mfaSetupToken) sets a mode up. */
  async setupWithToken(token: string, mode: MfaMode, phoneNumber: string | undefined): Promise<SetupAnswer> {
    const user = await this.setupUser(token);
    return { ...(await this.enrolment.setup(user, mode, phoneNumber)), mfaVerifyToken: token };
  }

  /** POST /v2/mfa/verify: the first right code switches MFA on and signs the user in; the set-up token dies. */
  async verifyWithToken(token: string, mode: MfaMode, otp: string, given: { secret?: string; phoneNumber?: string }): Promise<AuthResult> {
    const user = await this.setupUser(token);
    await this.enrolment.verify(user, mode, otp, given);
    await closeChallenge(this.db, token);
    const fresh = await findUserById(this.db, user.id);
    if (!fresh) throw notAuthenticated(BAD_CODE);
    return this.issue(fresh);
  }

  /**
   * The user of a set-up token, while it has no MFA: the token was given for a password alone, so once a mode is on
   * (set up with this token or another, or in any other way) it sets nothing up, or whoever else had the password
   * could replace the factor.
   */
  private async setupUser(token: string): Promise<UserRow> {
    const challenge = await findChallenge(this.db, token, this.deps.clock.now());
    const user = challenge?.mode === 'setup' ? await findUserById(this.db, challenge.userId) : undefined;
    if (!user || user.mfa_enabled === 1) throw notAuthenticated('Invalid or expired MFA set-up token: sign in again');
    return user;
  }

  /** The signed-in user as a sign-in returns it (GET /v2/users/me). */
  async me(userId: number): Promise<ApiUser> {
    const user = await findUserById(this.db, userId);
    if (!user) throw notAuthenticated('Missing, invalid or expired access token');
    return this.profileOf(user);
  }

  async issue(user: UserRow): Promise<AuthResult> {
    return { user: await this.profileOf(user), accessToken: this.deps.tokens.issue({ uid: user.id, ver: user.token_version }) };
  }

  /** The User object of a sign-in: the caller's own, so with its SIP password. */
  async profileOf(user: UserRow): Promise<ApiUser> {
    const caller = await callerOf(this.db, user);
    return toApiUser(user, {
      branchName: await branchName(this.db, scopeOfStoredRow(user), user.branch_id),
      permissions: [...caller.permissions].sort(),
      withPeerSecret: true,
    });
  }
}
