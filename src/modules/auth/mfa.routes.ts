import { publicRoute, route, type RouteDef } from '../../http/route';
import { setupWithToken, verifyWithToken, type AuthDeps } from './auth.service';
import { disableMfa, enableMode, removeMode, resendOwnCode, sendConfirmation, setupOwnMode, verifyOwnMode } from './enrolment.service';

/**
 * MFA enrolment and management, with the paths and bodies of the hosted platform's mobile app
 * (docs/authentication.md): before sign-in with the mfaSetupToken, and for the signed-in user.
 */
export function mfaRoutes(deps: AuthDeps): RouteDef[] {
  const tag = 'Authentication';
  return [
    publicRoute({
      method: 'post',
      path: '/v2/mfa/setup',
      tag,
      summary: 'Set up an MFA mode before signing in (the mfaSetupToken of a tenant that requires MFA)',
      body: 'mfa-setup',
      response: 'mfa-setup-response',
      permission: 'public',
      handler: ({ body }) => setupWithToken(deps, body),
    }),
    publicRoute({
      method: 'post',
      path: '/v2/mfa/verify',
      tag,
      summary: 'Verify the MFA mode set up with its first code: MFA goes on and the user is signed in',
      body: 'mfa-verify',
      response: 'auth-response',
      permission: 'public',
      handler: ({ body }) => verifyWithToken(deps, body),
    }),
    route({
      method: 'post',
      path: '/v2/mfa/auth/setup',
      tag,
      summary: 'Set up an MFA mode (the password, or a current code of a mode in use): a TOTP secret and its QR code, or a code sent',
      body: 'mfa-auth-setup',
      response: 'mfa-setup-response',
      permission: 'authenticated',
      handler: ({ caller, body }) => setupOwnMode(deps, caller, body),
    }),
    route({
      method: 'post',
      path: '/v2/mfa/auth/verify',
      tag,
      summary: "Verify an MFA mode set up with its first code; MFA goes on with it and the user's other tokens end",
      body: 'mfa-auth-verify',
      response: 'mfa-toggle-response',
      permission: 'authenticated',
      handler: ({ caller, body }) => verifyOwnMode(deps, caller, body),
    }),
    route({
      method: 'post',
      path: '/v2/mfa/auth/enable',
      tag,
      summary: 'Switch MFA on with a verified mode',
      body: 'mfa-toggle',
      response: 'mfa-toggle-response',
      permission: 'authenticated',
      handler: ({ caller, body }) => enableMode(deps, caller, body.mode),
    }),
    route({
      method: 'post',
      path: '/v2/mfa/auth/disable',
      tag,
      summary: 'Turn MFA off (the password or a current code); the other tokens end',
      body: 'mfa-disable',
      bodyOptional: true,
      response: 'mfa-toggle-response',
      permission: 'authenticated',
      handler: ({ caller, body }) => disableMfa(deps, caller, body),
    }),
    route({
      method: 'post',
      path: '/v2/mfa/auth/disable-mode',
      tag,
      summary: 'Remove one MFA mode (the password or a current code); the other tokens end',
      body: 'mfa-toggle',
      response: 'mfa-toggle-response',
      permission: 'authenticated',
      handler: ({ caller, body }) => removeMode(deps, caller, body.mode, body),
    }),
    route({
      method: 'post',
      path: '/v2/mfa/auth/resend-otp',
      tag,
      summary: 'A new code for an MFA mode being set up',
      body: 'mfa-auth-resend',
      response: 'mfa-resend-response',
      permission: 'authenticated',
      handler: ({ caller, body }) => resendOwnCode(deps, caller, body.mode),
    }),
    route({
      method: 'post',
      path: '/v2/mfa/auth/confirmation-code',
      tag,
      summary: 'Send a code by a mode in use (SMS or e-mail) that proves the owner is present, as otp of the routes that ask',
      addition: true,
      body: 'mfa-confirmation',
      response: 'mfa-toggle-response',
      permission: 'authenticated',
      handler: ({ caller, body }) => sendConfirmation(deps, caller, body.mode),
    }),
  ];
}
