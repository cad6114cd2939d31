import type { TestApp, TestResponse } from './app';

/*
 * The hosted platform's public mobile app (abeerlit/ios-project-expo), its account functions as they call the
 * API: the same method, path and body each, written again here so the tests need no network. Each function names
 * the app's function it stands for (src/shared/api/authentication/methods.ts and users/methods.ts).
 */

export type MFAMode = 'sms' | 'email' | 'app';

/** The app's AuthResponse (authentication/types.ts). */
export interface AuthResponse {
  accessToken?: string;
  user?: { id: number; email: string; mfaEnabled: number; mfaMode: string; mfaAppSecret: string; [k: string]: unknown };
  mode?: MFAMode;
  mfaVerifyToken?: string;
  mfaSetupToken?: string;
  message?: string;
  phoneNumber?: string;
  secret?: string;
}
export interface MFASetupResponse {
  mode: MFAMode;
  mfaVerifyToken?: string;
  phoneNumber?: string;
  secret?: string;
  qrcode?: string;
}
export interface MFAToggleResponse {
  status: string;
  message: string;
}
export interface MFAResendOTPResponse {
  status?: string;
  mode: MFAMode;
  mfaVerifyToken: string;
  message: string;
}
export interface ResetResponse {
  status: string;
  message: string;
}

/**
 * What TARS asks for besides the app's bodies where a change needs proof that the owner is present (issue 27,
 * docs/authentication.md): the current password, or a current MFA code. The app does not send it yet.
 */
export interface Proof {
  password?: string;
  otp?: string;
}

export function mobileApp(app: TestApp) {
  const post = <T>(path: string, body: unknown, token?: string) => app.request('POST', path, { body, token }) as Promise<TestResponse<T>>;
  const patch = <T>(path: string, body: unknown, token?: string) => app.request('PATCH', path, { body, token }) as Promise<TestResponse<T>>;
  return {
    authenticate: (data: { email: string; password: string }) => post<AuthResponse>('/v2/authentication/mfa', data),
    validateMFA: (data: { token: string; otp: string }) => post<AuthResponse>('/v2/mfa/validate', data),
    resendOTP: (data: { token?: string; mode: MFAMode; phoneNumber?: string }) => post<MFAResendOTPResponse>('/v2/mfa/resend-otp', data),
    setupMFA: (data: { mode: MFAMode; token?: string; phoneNumber?: string }) => post<MFASetupResponse>('/v2/mfa/setup', data),
    verifyMFA: (data: { mode: MFAMode; otp: string; secret?: string; phoneNumber?: string; token?: string }) =>
      post<AuthResponse>('/v2/mfa/verify', data),
    setupAuthMFA: (data: { mode: MFAMode; token?: string; phoneNumber?: string }, accessToken: string, proof: Proof = {}) =>
      post<MFASetupResponse>('/v2/mfa/auth/setup', { ...data, ...proof }, accessToken),
    verifyMFAAuth: (data: { mode: MFAMode; otp: string; secret?: string; phoneNumber?: string }, accessToken: string) =>
      post<MFAToggleResponse & { accessToken?: string }>('/v2/mfa/auth/verify', data, accessToken),
    enableMFA: (data: { mode: MFAMode }, accessToken: string) => post<MFAToggleResponse>('/v2/mfa/auth/enable', data, accessToken),
    disableMFA: (accessToken: string, proof: Proof = {}) =>
      post<MFAToggleResponse & { accessToken?: string }>('/v2/mfa/auth/disable', { ...proof }, accessToken),
    disableMFAMode: (data: { mode: MFAMode }, accessToken: string, proof: Proof = {}) =>
      post<MFAToggleResponse & { accessToken?: string }>('/v2/mfa/auth/disable-mode', { ...data, ...proof }, accessToken),
    resendOTPAuth: (data: { token?: string; mode: MFAMode; phoneNumber?: string }, accessToken: string) =>
      post<MFAResendOTPResponse>('/v2/mfa/auth/resend-otp', data, accessToken),
    getCurrentUserProfile: (accessToken: string) => app.request('GET', '/v2/users/me', { token: accessToken }),
    requestPasswordReset: (data: { email: string }) => post<ResetResponse>('/v2/users/request-password-reset', data),
    resetPassword: (password: string, accessToken: string, proof: { currentPassword?: string; otp?: string } = {}) =>
      post<ResetResponse & { accessToken?: string }>('/v2/users/manual-reset-password', { password, ...proof }, accessToken),
    patchUserTitle: (title: string, t: string) => patch('/v2/users/user-settings/title', { title }, t),
    patchUserTheme: (darkMode: number, t: string) => patch('/v2/users/user-settings/dark-mode', { darkMode }, t),
    patchCallNotifications: (enableCallNotifications: number, t: string) =>
      patch('/v2/users/user-settings/call-notifications', { enableCallNotifications }, t),
    patchMobileCallNotifications: (enableMobileCallNotifications: number, t: string) =>
      patch('/v2/users/user-settings/mobile/call-notifications', { enableMobileCallNotifications }, t),
    patchChatNotifications: (
      data: { enableChatNotifications: 0 | 1; enableAllNewMessageNotifications: 0 | 1; enableDirectMessageNotifications: 0 | 1 },
      t: string,
    ) => patch('/v2/users/user-settings/mobile/chat-notifications', data, t),
    patchTextNotifications: (enableTextNotifications: number, t: string) =>
      patch('/v2/users/user-settings/mobile/text-notifications', { enableMobileTextNotifications: enableTextNotifications }, t),
    toggleUserDND: (dnd: boolean, t: string) => patch('/v2/users/user-settings/dnd', { dnd }, t),
  };
}
