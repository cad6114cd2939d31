import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Router } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { Config } from '../config';
import { notAuthenticated } from '../errors';

/**
 * The server's Prometheus metrics: one registry per server (tests run several in one process). Other
 * modules add theirs in one of two ways:
 *  - a gauge computed at scrape time from the database (src/metrics/gauges.ts, GAUGES): right for whatever
 *    another process may do, such as `tars import`, and for anything that must survive a restart;
 *  - a prom-client counter or histogram of their own on `deps.metrics.registry`, for events that happen in
 *    the server process only (e.g. `new Counter({ name: 'tars_webhook_attempts_total', help, registers: [deps.metrics.registry] })`).
 * Every name starts with tars_ (the process_* and nodejs_* defaults of prom-client aside).
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly durations: Histogram<'method' | 'route'>;
  /**
   * prom-client's child of each label set, kept (bounded by the route table): looking a label set up hashes its
   * labels on every call, a few microseconds of every request.
   */
  private readonly series = new Map<string, { count: Counter.Internal; time: Histogram.Internal<'method' | 'route'> }>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'tars_http_requests_total',
      help: 'HTTP requests answered, by method, route (as declared, e.g. /v2/webhooks/:id; "unmatched" for unknown paths) and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.durations = new Histogram({
      name: 'tars_http_request_duration_seconds',
      help: 'Time from the request to the end of its response, by method and route',
      labelNames: ['method', 'route'],
      buckets: [...DURATION_BUCKETS],
      registers,
    });
  }

  /**
   * Counts a response and its latency, labelled by the route that answered it (req.route, as declared;
   * "unmatched" when none did), so the series are bounded by the route table. src/http/middleware.ts calls
   * it when a response is finished.
   */
  record(req: Request, status: number, seconds: number): void {
    const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
    const key = `${req.method} ${route} ${status}`;
    let series = this.series.get(key);
    if (!series) {
      series = { count: this.requests.labels(req.method, route, String(status)), time: this.durations.labels(req.method, route) };
      this.series.set(key, series);
    }
    series.count.inc();
    series.time.observe(seconds);
  }
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** GET /metrics, in Prometheus's text format; when TARS_METRICS_TOKEN is set, only with that bearer token. */
export function mountMetricsPage(router: Router, metrics: Metrics, config: Config): void {
  const expected = config.metricsToken === undefined ? undefined : digest(config.metricsToken);
  router.get('/metrics', async (req, res) => {
    if (expected) {
      const given = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (!given || !timingSafeEqual(digest(given), expected))
        throw notAuthenticated('GET /metrics needs the metrics token (TARS_METRICS_TOKEN) as a bearer token');
    }
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(await metrics.registry.metrics());
  });
}

/** Equal-length digests, so the comparison takes the same time whatever was sent. */
const digest = (text: string) => createHash('sha256').update(text).digest();
