import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Router } from 'express';
import { collectDefaultMetrics, Registry, type Metric } from 'prom-client';
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
  private readonly http = new HttpRequestMetrics();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    for (const metric of this.http.metrics()) this.registry.registerMetric(metric);
  }

  /**
   * Counts a response and its latency, labelled by the route that answered it (req.route, as declared;
   * "unmatched" when none did). src/http/middleware.ts calls it when a response is finished.
   */
  record(req: Request, status: number, seconds: number): void {
    this.http.record(req.method, (req.route as { path?: string } | undefined)?.path ?? 'unmatched', status, seconds);
  }
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** The requests of one method and route: counts by status, latencies by bucket (the last: above every bound). */
interface RouteSeries {
  readonly method: string;
  readonly route: string;
  readonly statuses: Map<number, number>;
  readonly buckets: number[];
  sum: number;
  count: number;
}

/**
 * tars_http_requests_total (by method, route, status) and tars_http_request_duration_seconds (a histogram
 * by method and route), kept in plain numbers: prom-client validates, sorts and joins the labels of every
 * inc() and observe(), 8 us a request under load; here a request costs two map lookups and a few
 * additions. At a scrape they are handed to the registry as the values prom-client's own Counter and
 * Histogram would give (same names, labels in the same order, cumulative buckets with le="+Inf", _sum,
 * _count). Bounded by the route table (unknown paths share "unmatched") times the methods and statuses.
 */
class HttpRequestMetrics {
  private readonly byRoute = new Map<string, Map<string, RouteSeries>>();

  record(method: string, route: string, status: number, seconds: number): void {
    let ofRoute = this.byRoute.get(route);
    if (!ofRoute) this.byRoute.set(route, (ofRoute = new Map()));
    let s = ofRoute.get(method);
    if (!s) ofRoute.set(method, (s = { method, route, statuses: new Map(), buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0 }));
    s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1);
    let b = 0;
    while (b < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[b] as number)) b++;
    (s.buckets[b] as number)++;
    s.sum += seconds;
    s.count++;
  }

  /** The two metrics as the registry reads them (its get() at every scrape, reset() with resetMetrics()). */
  metrics(): Metric[] {
    const series = () => [...this.byRoute.values()].flatMap((m) => [...m.values()]);
    // Plain objects with what the registry uses of a metric (name, help, type, get, reset), not prom-client classes.
    const metric = (meta: { name: string; help: string; type: string }, values: () => unknown[]) => {
      const about = { ...meta, aggregator: 'sum' };
      return { ...about, get: async () => ({ ...about, values: values() }), reset: () => this.byRoute.clear() } as unknown as Metric;
    };
    const name = 'tars_http_request_duration_seconds';
    return [
      metric(
        {
          name: 'tars_http_requests_total',
          help: 'HTTP requests answered, by method, route (as declared, e.g. /v2/webhooks/:id; "unmatched" for unknown paths) and status',
          type: 'counter',
        },
        () => series().flatMap((s) => [...s.statuses].map(([status, value]) => ({ labels: { method: s.method, route: s.route, status: String(status) }, value }))),
      ),
      metric({ name, help: 'Time from the request to the end of its response, by method and route', type: 'histogram' }, () =>
        series().flatMap((s) => {
          const labels = { method: s.method, route: s.route };
          let below = 0;
          const buckets = s.buckets.map((n, i) => {
            below += n;
            return { labels: { le: i < DURATION_BUCKETS.length ? (DURATION_BUCKETS[i] as number) : '+Inf', ...labels }, value: below, metricName: `${name}_bucket` };
          });
          return [...buckets, { labels, value: s.sum, metricName: `${name}_sum` }, { labels, value: s.count, metricName: `${name}_count` }];
        }),
      ),
    ];
  }
}

/** GET /metrics, in Prometheus's text format; when TARS_METRICS_TOKEN is set, only with that bearer token. */
export function mountMetricsPage(router: Router, metrics: Metrics, config: Config): void {
  const expected = config.metricsToken === undefined ? undefined : digest(config.metricsToken);
  router.get('/metrics', async (req, res) => {
    if (expected) {
      const given = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (!given || !timingSafeEqual(digest(given), expected)) throw notAuthenticated('GET /metrics needs the metrics token (TARS_METRICS_TOKEN) as a bearer token');
    }
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(await metrics.registry.metrics());
  });
}

/** Equal-length digests, so the comparison takes the same time whatever was sent. */
const digest = (text: string) => createHash('sha256').update(text).digest();
