import { systemClock, type Clock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/database';
import type { Logger } from '../../log';
import { deliverOnce, type AttemptResult } from './deliver';
import { claimDue, disableWebhook, recordAttempt, webhookTarget, type Delivery } from './deliveries.repository';
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

  /**
   * Delivers everything that is due now, webhook by webhook in order; returns the number of attempts (a delivery
   * given up because its attempts ran out counts as one). Deliveries are taken CONCURRENCY at a time, each leased
   * for three timeouts (claimDue): another process (an instance on the same database, a server beside a CLI) takes
   * a delivery only when this one's lease ran out, so while this process lives it is the only one sending it.
   */
  async drain(): Promise<number> {
    const { db, clock, config } = this.deps;
    let attempts = 0;
    for (;;) {
      const { taken, gaveUp } = await claimDue(db, clock.now(), CONCURRENCY, config.webhookTimeoutMs * 3, config.webhookAttempts);
      if (taken.length === 0 && gaveUp === 0) return attempts; // nothing due, or every head was taken by another process
      await Promise.all(taken.map((d) => this.attempt(d)));
      attempts += taken.length + gaveUp;
    }
  }

  /** One attempt of a delivery this process took: `d.attempts` is this attempt's number. */
  private async attempt(d: Delivery): Promise<void> {
    const { db } = this.deps;
    const { config, clock, log } = this.deps;
    const now = clock.now();
    const attempt = d.attempts;
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
    const kept = await recordAttempt(
      db,
      d.id,
      { attempt, startedAt, durationMs: Date.now() - started, statusCode: result.statusCode, error: result.error },
      {
        status: outcome,
        ...(outcome === 'retry' ? { nextAttemptAt: end + retryDelay(config.webhookRetryBaseMs, attempt) } : {}),
        ...(outcome === 'delivered' ? { deliveredAt: new Date(end).toISOString() } : {}),
      },
    );
    if (kept && outcome === 'gone')
      await disableWebhook(db, d.webhook_id, `the receiver answered 410 Gone on ${new Date(end).toISOString()}`, end);
    log.info(
      {
        webhookId: d.webhook_id,
        deliveryId: d.id,
        messageId: d.message_id,
        event: d.event_type,
        attempt,
        statusCode: result.statusCode,
        error: result.error,
        outcome: kept ? outcome : `${outcome}, but another process had taken the delivery (this one's lease ran out)`,
      },
      'webhook delivery attempt',
    );
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
