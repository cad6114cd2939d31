import pino, { type Logger } from 'pino';
import type { LogLevel } from './config';

export type { Logger };

/**
 * JSON lines (pino), one object per event. No request or response body, no Authorization header and no
 * secret is ever passed to the logger; the redaction below is a second line of defence for fields that
 * might reach it by accident.
 */
export function createLogger(level: LogLevel, destination: pino.DestinationStream = process.stdout): Logger {
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

/**
 * Standard output for the server's log, written without blocking the event loop: lines that come while a
 * write is under way gather and go out together in the next. A synchronous write per request line took
 * 15 us of every request (a log file, a pipe to journald). Whole lines only, in order; what is still
 * buffered is written when the process exits, including after a fatal error (pino flushes it then). A
 * SIGKILL or a power cut can lose the last milliseconds of lines, never a line's half.
 *
 * Each line is encoded once and queued as bytes (SonicBoom's buffer mode). In its default mode SonicBoom
 * appends each line to the text it has queued and then counts that text's bytes, which copies all of it
 * into one flat string, at every line: under load that was 4 KB allocated per request line, almost half
 * of what a request allocated beyond the floor app of the benchmark.
 */
export function serverLogOutput(): pino.DestinationStream & { write(line: string): boolean } {
  const sonic = pino.destination({ dest: 1, sync: false, contentMode: 'buffer' });
  return {
    // sonic.write is looked up at every line: after EPIPE (the reader is gone) pino makes it a no-op.
    write: (line: string) => sonic.write(Buffer.from(line, 'utf8') as unknown as string),
    flush: (cb?: (err?: Error) => void) => sonic.flush(cb),
    flushSync: () => sonic.flushSync(),
  } as pino.DestinationStream & { write(line: string): boolean };
}

export const silentLogger: Logger = pino({ level: 'silent' });
