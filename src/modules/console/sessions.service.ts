import { createHash, randomBytes } from 'node:crypto';
import { callerOf, type Caller } from '../../access/caller';
import { scopeOfStoredRow } from '../../access/scope';
import type { Clock } from '../../clock';
import type { Db } from '../../db/database';
import { forbidden, notAuthenticated } from '../../errors';
import {
  loginMfa,
  me,
  validate,
  verifyWithToken,
  type ApiUser,
  type AuthDeps,
  type MfaChallengeBody,
  type MfaMode,
  type MfaSetupBody,
} from '../auth/auth.service';
import { findUserById } from '../auth/credentials.repository';
import { getTenantRef, timezoneOfTenant } from '../tenants/tenants.repository';
import { deleteEndedSessions, deleteSession, findSession, insertSession, touchSession, type SessionRow } from './sessions.repository';

/** A session ends after this long without a request (a wallboard's stream counts: it is checked every 10 s). */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** Its last use is written at most this often (a write per request would double the cost of a read). */
const TOUCH_EVERY_MS = 60_000;
/** 32 random bytes, base64url: what a cookie must hold to be looked up at all. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

const ENDED = 'Your console session has ended: sign in again';
const OTHER_ORIGIN = 'Console sign-in and sign-out are accepted only from pages of this server';

export interface SessionDeps {
  readonly db: Db;
  readonly clock: Clock;
  /** How long a session lasts at most (TARS_TOKEN_TTL, as an access token). */
  readonly lifetimeSeconds: number;
}

/** What the console's sign-in routes need: the sessions, and the API's own sign-in rules (src/modules/auth). */
export interface ConsoleDeps extends SessionDeps, AuthDeps {}

/** A session just begun: the id its cookie carries (shown to nobody else) and how long the cookie lives. */
export interface StartedSession {
  readonly id: string;
  readonly maxAgeSeconds: number;
}

/** A sign-in step's answer, and the session it began when it was the last step. */
export interface SignInOutcome<B> {
  readonly body: B;
  readonly session?: StartedSession;
}

const hash = (id: string) => createHash('sha256').update(id).digest('hex');

/** The caller of a console session id (AppDeps.sessions, for src/http/request-caller.ts); 401 when it has ended. */
export function sessionResolver(deps: SessionDeps) {
  return {
    caller: async (id: string): Promise<Caller> => {
      const s = await liveSession(deps, id);
      if (!s) throw notAuthenticated(ENDED);
      return callerOf(deps.db, s.user, Math.floor(s.createdAt / 1000));
    },
  };
}

/** The stored session of an id, while it lasts: not expired, used within SESSION_IDLE_MS, of its user's current credentials. */
async function liveSession(deps: SessionDeps, id: string): Promise<SessionRow | undefined> {
  if (!SESSION_ID.test(id)) return undefined;
  const s = await findSession(deps.db, hash(id));
  const now = deps.clock.now();
  if (!s || s.sessionVersion !== s.user.token_version || s.expiresAt <= now || s.lastSeenAt + SESSION_IDLE_MS <= now) return undefined;
  if (now - s.lastSeenAt >= TOUCH_EVERY_MS) await touchSession(deps.db, s.id, now);
  return s;
}

async function startSession(deps: SessionDeps, userId: number): Promise<StartedSession> {
  const user = await findUserById(deps.db, userId);
  if (!user) throw notAuthenticated(ENDED);
  const now = deps.clock.now();
  await deleteEndedSessions(deps.db, now, SESSION_IDLE_MS);
  const id = randomBytes(32).toString('base64url');
  await insertSession(deps.db, {
    idHash: hash(id),
    userId: user.id,
    tokenVersion: user.token_version,
    now,
    expiresAt: now + deps.lifetimeSeconds * 1000,
  });
  return { id, maxAgeSeconds: deps.lifetimeSeconds };
}

/** Who is signed in: the User object, its tenant (the console shows times in its zone) and when the session ends. */
async function sessionBody(deps: ConsoleDeps, user: ApiUser, expiresAt: number) {
  const row = await findUserById(deps.db, user.id);
  if (!row) throw notAuthenticated(ENDED);
  const scope = scopeOfStoredRow(row);
  const tenant = await getTenantRef(deps.db, scope);
  return {
    user,
    tenant: { id: tenant.id, name: tenant.name, timezone: await timezoneOfTenant(deps.db, scope) },
    expiresAt: new Date(expiresAt).toISOString(),
  };
}

export type SessionBody = Awaited<ReturnType<typeof sessionBody>>;

async function signedIn(deps: ConsoleDeps, user: ApiUser): Promise<SignInOutcome<SessionBody>> {
  const session = await startSession(deps, user.id);
  return { body: await sessionBody(deps, user, deps.clock.now() + session.maxAgeSeconds * 1000), session };
}

/** Sign-in and sign-out come only from the console's own pages: a page of another origin cannot sign a browser in or out. */
function sameOriginOnly(fromOtherOrigin: boolean): void {
  if (fromOtherOrigin) throw forbidden(OTHER_ORIGIN);
}

/**
 * POST /v2/console/session: the password, as POST /v2/authentication/mfa checks it (same throttle). Without
 * MFA the session begins; with MFA the challenge (or the set-up a tenant that requires MFA asks for) comes back.
 */
export async function signIn(
  deps: ConsoleDeps,
  input: { email: string; password: string; ip: string; fromOtherOrigin: boolean },
): Promise<SignInOutcome<SessionBody | MfaChallengeBody | MfaSetupBody>> {
  sameOriginOnly(input.fromOtherOrigin);
  const answer = await loginMfa(deps, input);
  return 'accessToken' in answer ? signedIn(deps, answer.user) : { body: answer };
}

/** POST /v2/console/session/mfa: the challenge's code, as POST /v2/mfa/validate checks it; the session begins. */
export async function completeMfa(
  deps: ConsoleDeps,
  input: { token: string; otp: string; fromOtherOrigin: boolean },
): Promise<SignInOutcome<SessionBody>> {
  sameOriginOnly(input.fromOtherOrigin);
  return signedIn(deps, (await validate(deps, input)).user);
}

/** POST /v2/console/session/mfa-setup: the first code of a mode set up before signing in, as POST /v2/mfa/verify; the session begins. */
export async function completeEnrolment(
  deps: ConsoleDeps,
  input: { token: string; mode: MfaMode; otp: string; secret?: string; phoneNumber?: string; fromOtherOrigin: boolean },
): Promise<SignInOutcome<SessionBody>> {
  sameOriginOnly(input.fromOtherOrigin);
  const { token, mode, otp, secret, phoneNumber } = input;
  return signedIn(deps, (await verifyWithToken(deps, { token, mode, otp, secret, phoneNumber })).user);
}

/** GET /v2/console/session: the session of the cookie, while it lasts; 401 otherwise. */
export async function currentSession(deps: ConsoleDeps, input: { id: string | undefined; fromOtherOrigin: boolean }): Promise<SessionBody> {
  sameOriginOnly(input.fromOtherOrigin);
  const s = input.id === undefined ? undefined : await liveSession(deps, input.id);
  if (!s) throw notAuthenticated(ENDED);
  return sessionBody(deps, await me(deps, { user: s.user }), s.expiresAt);
}

/** DELETE /v2/console/session: the session ends on the server (its row deleted); answered alike whether it still lasted or not. */
export async function endSession(deps: ConsoleDeps, input: { id: string | undefined; fromOtherOrigin: boolean }) {
  sameOriginOnly(input.fromOtherOrigin);
  if (input.id !== undefined && SESSION_ID.test(input.id)) await deleteSession(deps.db, hash(input.id));
  return { status: 'success', message: 'Signed out' };
}
