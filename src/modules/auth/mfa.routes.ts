import type { Caller } from '../../access/caller';
import { publicRoute, route, type RouteDef } from '../../http/route';
import type { AuthService } from './auth.service';

/**
 * MFA enrolment and management, with the paths and bodies of the hosted platform's mobile app
 * (docs/authentication.md): before sign-in with the mfaSetupToken, and for the signed-in user.
 */
export function mfaRoutes(auth: AuthService): RouteDef[] {
  const tag = 'Authentication';
  const enrolment = auth.enrolment;
  const own = (caller: Caller) => enrolment.userOf(caller);
  return [
    publicRoute({
      method: 'post',
      path: '/v2/mfa/setup',
      tag,
      summary: 'Set up an MFA mode before signing in (the mfaSetupToken of a tenant that requires MFA)',
      body: 'mfa-setup',
      response: 'mfa-setup-response',
      permission: 'public',
      handler: ({ body }) => auth.setupWithToken(body.token, body.mode, body.phoneNumber),
    }),
    publicRoute({
      method: 'post',
      path: '/v2/mfa/verify',
      tag,
      summary: 'Verify the MFA mode set up with its first code: MFA goes on and the user is signed in',
      body: 'mfa-verify',
      response: 'auth-response',
      permission: 'public',
      handler: ({ body }) => auth.verifyWithToken(body.token, body.mode, body.otp, body),
    }),
    route({
      method: 'post',
      path: '/v2/mfa/auth/setup',
      tag,
      summary: 'Set up an MFA mode: a TOTP secret and its QR code, or a code sent by SMS or e-mail',
      body: 'mfa-auth-setup',
      response: 'mfa-setup-response',
      permission: 'authenticated',
      handler: async ({ caller, body }) => enrolment.setup(await own(caller), body.mode, body.phoneNumber),
    }),
    route({
      method: 'post',
      path: '/v2/mfa/auth/verify',
      tag,
      summary: 'Verify an MFA mode set up with its first code; MFA goes on with it',
      body: 'mfa-auth-verify',
      response: 'mfa-toggle-response',
      permission: 'authenticated',
      handler: async ({ caller, body }) => enrolment.verify(await own(caller), body.mode, body.otp, body),
    }),
    route({
      method: 'post',
      path: '/v2/mfa/auth/enable',
      tag,
      summary: 'Switch MFA on with a verified mode',
      body: 'mfa-toggle',
      response: 'mfa-toggle-response',
      permission: 'authenticated',
      handler: async ({ caller, body }) => enrolment.enable(await own(caller), body.mode),
    }),
    route({
      method: 'post',
      path: '/v2/mfa/auth/disable',
      tag,
      summary: 'Turn MFA off (the password, a current code, or a sign-in of the last 10 minutes)',
      body: 'mfa-disable',
      bodyOptional: true,
      response: 'mfa-toggle-response',
      permission: 'authenticated',
      handler: async ({ caller, body }) => enrolment.disable(await own(caller), caller, body),
    }),
    route({
      method: 'post',
      path: '/v2/mfa/auth/disable-mode',
      tag,
      summary: 'Remove one MFA mode (the password, a current code, or a sign-in of the last 10 minutes)',
      body: 'mfa-toggle',
      response: 'mfa-toggle-response',
      permission: 'authenticated',
      handler: async ({ caller, body }) => enrolment.disableMode(await own(caller), caller, body.mode, body),
    }),
    route({
      method: 'post',
      path: '/v2/mfa/auth/resend-otp',
      tag,
      summary: 'A new code for an MFA mode being set up',
      body: 'mfa-auth-resend',
      response: 'mfa-resend-response',
      permission: 'authenticated',
      handler: async ({ caller, body }) => enrolment.resend(await own(caller), body.mode),
    }),
  ];
}
