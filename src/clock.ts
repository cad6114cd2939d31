/** The server's idea of "now": real time in production, a controlled one in tests. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** ISO 8601 UTC with milliseconds, the timestamp format of decisions.md §3. */
export function isoNow(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}
