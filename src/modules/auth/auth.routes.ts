import { publicRoute, type RouteDef } from '../../http/route';
import { login, loginMfa, refresh, resend, validate, type AuthDeps } from './auth.service';
import { mfaRoutes } from './mfa.routes';

/** Sign-in and MFA (docs/authentication.md); the signed-in user's own account routes are users' (account.routes.ts). */
export function authRoutes(deps: AuthDeps): RouteDef[] {
  const tag = 'Authentication';
  return [
    publicRoute({
      method: 'post',
      path: '/v2/authentication',
      tag,
      summary: 'Log in with e-mail and password',
      body: 'auth-login',
      response: 'auth-response',
      permission: 'public',
      handler: ({ body, ip }) => login(deps, { email: body.email, password: body.password, ip }),
    }),
    publicRoute({
      method: 'post',
      path: '/v2/authentication/mfa',
      tag,
      summary: 'Log in; users with MFA get a challenge to complete at /v2/mfa/validate',
      body: 'auth-login',
      response: 'auth-or-challenge',
      permission: 'public',
      handler: ({ body, ip }) => loginMfa(deps, { email: body.email, password: body.password, ip }),
    }),
    publicRoute({
      method: 'post',
      path: '/v2/mfa/validate',
      tag,
      summary: 'Complete an MFA challenge with a one-time code',
      body: 'mfa-validate',
      response: 'auth-response',
      permission: 'public',
      handler: ({ body }) => validate(deps, body),
    }),
    publicRoute({
      method: 'post',
      path: '/v2/mfa/resend-otp',
      tag,
      summary: 'Replace an open MFA challenge with a new one (and send a new code)',
      body: 'mfa-resend',
      response: 'mfa-challenge',
      permission: 'public',
      handler: ({ body }) => resend(deps, body),
    }),
    publicRoute({
      method: 'post',
      path: '/v2/authentication/jwt',
      tag,
      summary: 'Exchange a still-valid access token for a fresh one',
      body: 'auth-jwt',
      response: 'auth-response',
      permission: 'public',
      handler: ({ body }) => refresh(deps, body),
    }),
    ...mfaRoutes(deps),
  ];
}
