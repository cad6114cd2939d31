import type { AttemptRule } from './attempt-limits';

/**
 * Login throttling (decisions.md §4): 10 failed logins for one e-mail, or 100 from one client address,
 * within 15 minutes → 429 with Retry-After, even with the right password, until the window has passed.
 * Only failures count, but an attempt counts from before its password is hashed (src/modules/auth/attempt-limits.ts),
 * so parallel requests cannot slip past the limit. Failures live in the database: the throttle survives a restart.
 */
export const WINDOW_MS = 15 * 60 * 1000;
export const LIMITS = { email: 10, address: 100 } as const;

export function loginRules(email: string, ip: string): AttemptRule[] {
  return [
    { key: `email:${email.trim().toLowerCase()}`, limit: LIMITS.email, windowMs: WINDOW_MS, what: 'this account', counts: 'failed logins' },
    { key: `ip:${ip}`, limit: LIMITS.address, windowMs: WINDOW_MS, what: 'your address', counts: 'failed logins' },
  ];
}

/**
 * MFA (issue 16): wrong codes per user, across challenges and resends, and resends per user. The numbers:
 * at most MFA_WRONG_CODES.limit wrong codes are evaluated in any hour, so at most 24 × 10 = 240 in any
 * 24 hours; a guess of a TOTP code matches one of 3 accepted codes (the step and one either side) out of
 * 10^6, so an attacker at any rate wins a day with probability at most 240 × 3 / 10^6 = 0.00072 < 1/1000
 * (e-mail and SMS codes: one code, 0.00024).
 */
export const MFA_WRONG_CODES = { limit: 10, windowMs: 60 * 60 * 1000 } as const;
export const MFA_RESENDS = { limit: 5, windowMs: 60 * 60 * 1000 } as const;

export const mfaCodeRule = (userId: number): AttemptRule => ({
  key: `mfa:${userId}`,
  ...MFA_WRONG_CODES,
  what: 'this account',
  counts: 'wrong one-time codes',
});
export const mfaResendRule = (userId: number): AttemptRule => ({
  key: `mfa-resend:${userId}`,
  ...MFA_RESENDS,
  what: 'this account',
  counts: 'new one-time codes',
});
