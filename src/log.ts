import pino, { type Logger } from 'pino';
import type { LogLevel } from './config';

export type { Logger };

/**
 * JSON lines (pino), one object per event. No request or response body, no Authorization header and no
 * secret is ever passed to the logger; the redaction below is a second line of defence for fields that
 * might reach it by accident.
 */
export function createLogger(level: LogLevel, destination: NodeJS.WritableStream = process.stdout): Logger {
  return pino(
    {
      level,
      base: { service: 'tars' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['password', '*.password', 'authorization', '*.authorization', 'accessToken', '*.accessToken', 'secret', '*.secret', 'otp', '*.otp'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

export const silentLogger: Logger = pino({ level: 'silent' });
