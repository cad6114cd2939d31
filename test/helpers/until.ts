import { setTimeout as sleep } from 'node:timers/promises';

export interface UntilOptions {
  /** What is awaited, for the error when it never comes. */
  readonly what?: string;
  /** How long to keep asking. */
  readonly ms?: number;
}

/**
 * Polls `check` until it gives a value (anything but undefined or false) and returns that value: how tests wait
 * for something another process or a timer does, instead of sleeping for a while.
 */
export async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>, opts: UntilOptions = {}): Promise<T> {
  const ms = opts.ms ?? 15_000;
  for (const end = Date.now() + ms; ; await sleep(20)) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${opts.what ?? String(check)}`);
  }
}
