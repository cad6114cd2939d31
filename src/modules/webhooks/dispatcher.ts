import { systemClock, type Clock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/database';
import type { Logger } from '../../log';
import { deliverOnce, type AttemptResult } from './deliver';
import { claimDelivery, disableWebhook, dueHeads, giveUp, recordAttempt, webhookTarget, type Delivery } from './deliveries.repository';
import { createUrlPolicy, type UrlPolicy } from '../../net/url-policy';

/** Deliveries attempted at the same time (each to a different webhook). */
const CONCURRENCY = 8;
const MAX_DELAY_MS = 60 * 60 * 1000;

export type Outcome = 'delivered' | 'retry' | 'failed' | 'gone';

/**
 * What an attempt means (issue: webhook delivery): 2xx delivered; 410 Gone disables the webhook; a
 * connection error, a timeout, 5xx and 429 are retried; any other status is final. A destination the
 * operator's policy refuses is final too.
 */
export function classify(r: AttemptResult): Outcome {
  if (r.statusCode === null) return r.refused ? 'failed' : 'retry';
  if (r.statusCode >= 200 && r.statusCode < 300) return 'delivered';
  if (r.statusCode === 410) return 'gone';
  if (r.statusCode === 429 || r.statusCode >= 500) return 'retry';
  return 'failed';
}

/** Exponential backoff with jitter: base · 2^(attempt−1), between half and all of it, at most an hour. */
export function retryDelay(baseMs: number, attempt: number, random: () => number = Math.random): number {
  const full = Math.min(MAX_DELAY_MS, baseMs * 2 ** (attempt - 1));
  return Math.round(full / 2 + random() * (full / 2));
}

/** What the deliveries use (docs/architecture.md, "The service shape"). */
export interface DispatchDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: Pick<Config, 'webhookAllow' | 'webhookDeny' | 'webhookAttempts' | 'webhookTimeoutMs' | 'webhookRetryBaseMs'>;
}

export class Dispatcher {
  private readonly policy: UrlPolicy;

  constructor(private readonly deps: DispatchDeps) {
    this.policy = createUrlPolicy(deps.config.webhookAllow, deps.config.webhookDeny);
  }

  /** Delivers everything that is due now, webhook by webhook in order; returns the number of attempts. */
  async drain(): Promise<number> {
    let attempts = 0;
    for (;;) {
      const heads = await dueHeads(this.deps.db, this.deps.clock.now(), CONCURRENCY * 4);
      if (heads.length === 0) return attempts;
      let done = 0;
      for (let i = 0; i < heads.length; i += CONCURRENCY) {
        const results = await Promise.all(heads.slice(i, i + CONCURRENCY).map((d) => this.attempt(d)));
        done += results.filter(Boolean).length;
      }
      attempts += done;
      if (done === 0) return attempts; // every head was taken by another process
    }
  }

  private async attempt(d: Delivery): Promise<boolean> {
    const { db } = this.deps;
    const { config, clock, log } = this.deps;
    const now = clock.now();
    // Attempts never exceed the maximum, even for a delivery left delivering by a process that died.
    if (d.attempts >= config.webhookAttempts) return giveUp(db, d, `gave up after ${d.attempts} attempts`);
    if (!(await claimDelivery(db, d, now, config.webhookTimeoutMs * 3))) return false;
    const attempt = d.attempts + 1;
    const startedAt = new Date(now).toISOString();
    const started = Date.now();
    // Whatever goes wrong ends the attempt with its error recorded (retried while attempts remain).
    const result: AttemptResult = await this.send(d, now).catch((err: unknown) => ({
      statusCode: null,
      error: `the delivery failed: ${(err as Error).message}`,
    }));
    let outcome = classify(result);
    if (outcome === 'retry' && attempt >= config.webhookAttempts) outcome = 'failed';
    const end = clock.now();
    await recordAttempt(
      db,
      d.id,
      { attempt, startedAt, durationMs: Date.now() - started, statusCode: result.statusCode, error: result.error },
      {
        status: outcome,
        ...(outcome === 'retry' ? { nextAttemptAt: end + retryDelay(config.webhookRetryBaseMs, attempt) } : {}),
        ...(outcome === 'delivered' ? { deliveredAt: new Date(end).toISOString() } : {}),
      },
    );
    if (outcome === 'gone') await disableWebhook(db, d.webhook_id, `the receiver answered 410 Gone on ${new Date(end).toISOString()}`, end);
    log.info(
      {
        webhookId: d.webhook_id,
        deliveryId: d.id,
        messageId: d.message_id,
        event: d.event_type,
        attempt,
        statusCode: result.statusCode,
        error: result.error,
        outcome,
      },
      'webhook delivery attempt',
    );
    return true;
  }

  /** One attempt at the webhook's current target (it may have been deleted or disabled meanwhile). */
  private async send(d: Delivery, now: number): Promise<AttemptResult> {
    const hook = await webhookTarget(this.deps.db, d.webhook_id, now);
    if (!hook) return { statusCode: null, error: 'the webhook no longer exists', refused: true };
    if (hook.disabled_at) return { statusCode: null, error: 'the webhook is disabled', refused: true };
    // The signature's timestamp is the receivers' replay guard, compared with their own wall clock: it is the real
    // time (systemClock), never the deps' clock, which schedules the deliveries (and which tests move).
    return deliverOnce(hook, d.message_id, d.payload, Math.floor(systemClock.now() / 1000), this.policy, this.deps.config.webhookTimeoutMs);
  }
}
