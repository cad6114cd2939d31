import { SESSION_COOKIE } from '../../http/request-caller';
import { publicRoute, type HttpExchange, type RouteDef } from '../../http/route';
import {
  completeEnrolment,
  completeMfa,
  currentSession,
  endSession,
  signIn,
  type ConsoleDeps,
  type SignInOutcome,
} from './sessions.service';

/** The body of a sign-in step, its session's cookie set when it began one. */
function answer<B>(http: HttpExchange, outcome: SignInOutcome<B>): B {
  if (outcome.session) http.setCookie(SESSION_COOKIE, outcome.session.id, outcome.session.maxAgeSeconds);
  return outcome.body;
}

/**
 * The console's session (docs/console.md): the API's own sign-in steps, ending in an HttpOnly cookie instead of
 * an access token, and sign-out. Public routes (a session is what they make), refused when the browser says the
 * request comes from a page of another origin.
 */
export function consoleRoutes(console: ConsoleDeps): RouteDef[] {
  const tag = 'Console';
  return [
    publicRoute({
      method: 'post',
      path: '/v2/console/session',
      tag,
      summary: 'Sign in to the console: the session cookie, or the MFA challenge (or set-up) to complete first',
      addition: true,
      body: 'auth-login',
      response: 'console-sign-in',
      permission: 'public',
      handler: async ({ body, ip, http }) => answer(http, await signIn(console, { ...body, ip, fromOtherOrigin: http.fromOtherOrigin })),
    }),
    publicRoute({
      method: 'post',
      path: '/v2/console/session/mfa',
      tag,
      summary: "Complete the console sign-in's MFA challenge with its code: the session cookie",
      addition: true,
      body: 'mfa-validate',
      response: 'console-session',
      permission: 'public',
      handler: async ({ body, http }) => answer(http, await completeMfa(console, { ...body, fromOtherOrigin: http.fromOtherOrigin })),
    }),
    publicRoute({
      method: 'post',
      path: '/v2/console/session/mfa-setup',
      tag,
      summary: 'Verify the MFA mode set up before signing in (POST /v2/mfa/setup) with its first code: MFA goes on, the session cookie',
      addition: true,
      body: 'mfa-verify',
      response: 'console-session',
      permission: 'public',
      handler: async ({ body, http }) => answer(http, await completeEnrolment(console, { ...body, fromOtherOrigin: http.fromOtherOrigin })),
    }),
    publicRoute({
      method: 'get',
      path: '/v2/console/session',
      tag,
      summary: "The console session of the request's cookie: its user, its tenant and when it ends",
      addition: true,
      response: 'console-session',
      permission: 'public',
      handler: ({ http }) => currentSession(console, { id: http.cookie(SESSION_COOKIE), fromOtherOrigin: http.fromOtherOrigin }),
    }),
    publicRoute({
      method: 'delete',
      path: '/v2/console/session',
      tag,
      summary: 'Sign out of the console: the session ends on the server and its cookie is removed',
      addition: true,
      response: 'status-response',
      permission: 'public',
      handler: async ({ http }) => {
        const done = await endSession(console, { id: http.cookie(SESSION_COOKIE), fromOtherOrigin: http.fromOtherOrigin });
        http.setCookie(SESSION_COOKIE, '', 0);
        return done;
      },
    }),
  ];
}
