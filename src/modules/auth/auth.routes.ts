import type { AppDeps } from '../../deps';
import { publicRoute, type RouteDef } from '../../http/route';
import { accountRoutes } from '../users/account.routes';
import { AuthService } from './auth.service';
import { mfaRoutes } from './mfa.routes';

export function authRoutes(deps: AppDeps): RouteDef[] {
  const auth = new AuthService(deps);
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
      handler: ({ body, ip }) => auth.login(body.email, body.password, ip),
    }),
    publicRoute({
      method: 'post',
      path: '/v2/authentication/mfa',
      tag,
      summary: 'Log in; users with MFA get a challenge to complete at /v2/mfa/validate',
      body: 'auth-login',
      response: 'auth-or-challenge',
      permission: 'public',
      handler: ({ body, ip }) => auth.loginMfa(body.email, body.password, ip),
    }),
    publicRoute({
      method: 'post',
      path: '/v2/mfa/validate',
      tag,
      summary: 'Complete an MFA challenge with a one-time code',
      body: 'mfa-validate',
      response: 'auth-response',
      permission: 'public',
      handler: ({ body }) => auth.validate(body.token, body.otp),
    }),
    publicRoute({
      method: 'post',
      path: '/v2/mfa/resend-otp',
      tag,
      summary: 'Replace an open MFA challenge with a new one (and send a new code)',
      body: 'mfa-resend',
      response: 'mfa-challenge',
      permission: 'public',
      handler: ({ body }) => auth.resend(body.token, body.mode),
    }),
    publicRoute({
      method: 'post',
      path: '/v2/authentication/jwt',
      tag,
      summary: 'Exchange a still-valid access token for a fresh one',
      body: 'auth-jwt',
      response: 'auth-response',
      permission: 'public',
      handler: ({ body }) => auth.refresh(body.accessToken),
    }),
    ...mfaRoutes(auth),
    ...accountRoutes(deps, auth),
  ];
}
