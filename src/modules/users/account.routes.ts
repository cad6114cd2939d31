import { publicRoute, route, type RouteDef } from '../../http/route';
import type { SchemaId } from '../../validation/validation';
import { me } from '../auth/auth.service';
import { changeOwnPassword, requestReset, resetWithToken, type PasswordDeps } from '../auth/password.service';
import { changeOwnSettings, type AccountDeps } from './account.service';
import type { OwnSettings } from './users.repository';

/** The app's settings routes: path, body schema, and the columns its body sets (each a 0/1 flag unless said). */
const SETTINGS: ReadonlyArray<{ path: string; schema: SchemaId; summary: string; columns: Record<string, keyof OwnSettings> }> = [
  { path: 'title', schema: 'settings-title', summary: 'job title', columns: { title: 'title' } },
  { path: 'dark-mode', schema: 'settings-dark-mode', summary: 'dark mode', columns: { darkMode: 'dark_mode' } },
  { path: 'dnd', schema: 'settings-dnd', summary: 'do not disturb', columns: { dnd: 'dnd' } },
  {
    path: 'call-notifications',
    schema: 'settings-call-notifications',
    summary: 'call notifications',
    columns: { enableCallNotifications: 'enable_call_notifications' },
  },
  {
    path: 'text-notifications',
    schema: 'settings-text-notifications',
    summary: 'text notifications',
    columns: { enableTextNotifications: 'enable_text_notifications' },
  },
  {
    path: 'mobile/call-notifications',
    schema: 'settings-mobile-call-notifications',
    summary: 'incoming-call notifications on the mobile app',
    columns: { enableMobileCallNotifications: 'enable_mobile_call_notifications' },
  },
  {
    path: 'mobile/chat-notifications',
    schema: 'settings-mobile-chat-notifications',
    summary: 'chat notifications on the mobile app',
    columns: {
      enableChatNotifications: 'enable_chat_notifications',
      enableAllNewMessageNotifications: 'enable_all_new_message_notifications',
      enableDirectMessageNotifications: 'enable_direct_message_notifications',
    },
  },
  {
    path: 'mobile/text-notifications',
    schema: 'settings-mobile-text-notifications',
    summary: 'text notifications on the mobile app',
    columns: { enableMobileTextNotifications: 'enable_mobile_text_notifications' },
  },
];

/** "Me": the signed-in user's profile, settings and password (the hosted API's /v2/users/... routes of the mobile app). */
export function accountRoutes(deps: PasswordDeps & AccountDeps): RouteDef[] {
  const tag = 'Users';
  return [
    route({
      method: 'get',
      path: '/v2/users/me',
      tag,
      summary: 'The signed-in user, as a sign-in returns it',
      response: 'user',
      permission: 'authenticated',
      handler: ({ caller }) => me(deps, caller),
    }),
    publicRoute({
      method: 'post',
      path: '/v2/users/request-password-reset',
      tag,
      summary: 'E-mail a single-use reset token (the same answer whether the address has an account or not)',
      body: 'password-reset-request',
      response: 'status-response',
      permission: 'public',
      handler: ({ body, ip }) => requestReset(deps, { email: body.email, ip }),
    }),
    publicRoute({
      method: 'post',
      path: '/v2/users/reset-password',
      tag,
      summary: 'Set a new password with the token of the reset e-mail',
      addition: true,
      body: 'password-reset',
      response: 'status-response',
      permission: 'public',
      handler: ({ body, ip }) => resetWithToken(deps, { token: body.token, password: body.password, ip }),
    }),
    route({
      method: 'post',
      path: '/v2/users/manual-reset-password',
      tag,
      summary: "Change the signed-in user's password (the current one, or a current MFA code); every earlier token ends",
      body: 'manual-reset-password',
      response: 'status-response',
      permission: 'authenticated',
      handler: ({ caller, body }) => changeOwnPassword(deps, caller, body),
    }),
    ...SETTINGS.map((s) =>
      route({
        method: 'patch',
        path: `/v2/users/user-settings/${s.path}`,
        tag,
        summary: `Set the signed-in user's ${s.summary}`,
        body: s.schema,
        response: s.schema,
        permission: 'authenticated',
        handler: ({ caller, body }) => changeOwnSettings(deps, caller, s.columns, body as object) as never,
      }),
    ),
  ];
}
