import { Secret, TOTP } from 'otpauth';

/** The authenticator app's code for a base32 secret at an instant (RFC 6238 as TARS checks it: SHA-1, 6 digits, 30 s). */
export const totpCode = (secret: string, ms: number): string =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: ms });

/** The first six-digit code in a text TARS sent (an e-mail, an SMS). */
export const sixDigits = (text: string): string => /(\d{6})/.exec(text)?.[1] as string;
