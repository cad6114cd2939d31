import { statSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { expect } from 'chai';
import { Counter, Histogram, Registry } from 'prom-client';
import { ConfigError, loadConfig } from '../../src/config';
import { registerGauges } from '../../src/metrics/gauges';
import { Metrics } from '../../src/metrics/metrics';
import { startTestApp, type TestApp } from '../helpers/app';
import { buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';

/** The value of one sample line of a Prometheus text exposition, e.g. value(text, 'tars_x{a="b"}'). */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  describe('the request counter and latency histogram (kept in plain numbers)', () => {
    it('when responses are recorded, then the text is what prom-client writes for the same observations', async () => {
      const observed: Array<[string, string | undefined, number, number]> = [
        ['GET', '/v2/webhooks/:id', 200, 0.003],
        ['GET', '/v2/webhooks/:id', 200, 0.005], // on a bound: counted in it (le is "less or equal")
        ['GET', '/v2/webhooks/:id', 404, 0.07],
        ['POST', '/v2/webhooks', 201, 1.5],
        ['GET', undefined, 404, 20], // above every bound, and no route: "unmatched"
      ];
      const ours = new Metrics();
      for (const [method, path, status, seconds] of observed)
        ours.record({ method, route: path ? { path } : undefined } as never, status, seconds);

      const theirs = new Registry();
      const counter = new Counter({
        name: 'tars_http_requests_total',
        help: 'x',
        labelNames: ['method', 'route', 'status'],
        registers: [theirs],
      });
      const histogram = new Histogram({
        name: 'tars_http_request_duration_seconds',
        help: 'x',
        labelNames: ['method', 'route'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [theirs],
      });
      for (const [method, path, status, seconds] of observed) {
        counter.inc({ method, route: path ?? 'unmatched', status: String(status) });
        histogram.observe({ method, route: path ?? 'unmatched' }, seconds);
      }
      const samples = (text: string) =>
        text
          .split('\n')
          .filter((l) => l.startsWith('tars_http_'))
          .sort();
      const mine = samples(await ours.registry.metrics());
      expect(mine).to.have.length(4 + 3 * 14); // 4 counter series; 3 histogram series (method, route) of 12 buckets, _sum and _count
      expect(mine).to.deep.equal(samples(await theirs.metrics()));
      ours.registry.resetMetrics();
      expect(samples(await ours.registry.metrics())).to.deep.equal([]);
    });
  });

  describe('with the defaults (on, no token)', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp();
    });
    after(() => app.close());

    it('when requests were answered, then they are counted by declared route and status, with a latency histogram', async () => {
      const { db } = app.deps.database;
      const tenant = await buildTenant(db);
      const admin = await buildUser(db, tenant.id, ROLE.account);
      const token = await tokenFor(app, admin);
      expect(
        (await app.request('POST', '/v2/admin/branches', { token, body: { tenantId: tenant.id, name: 'Metered', timezone: 'UTC' } }))
          .status,
      ).to.equal(201);
      expect(
        (await app.request('POST', '/v2/admin/branches/', { token, body: { tenantId: tenant.id, name: 'Slashed', timezone: 'UTC' } }))
          .status,
      ).to.equal(201);
      expect((await app.request('POST', '/v2/admin/branches', { token, body: { tenantId: tenant.id } })).status).to.equal(400);
      expect((await app.request('GET', '/v2/no/such/thing/12345')).status).to.equal(404);

      const res = await app.request('GET', '/metrics');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
      expect(value(res.text, 'tars_http_requests_total{method="POST",route="/v2/admin/branches",status="201"}')).to.equal(2);
      expect(value(res.text, 'tars_http_requests_total{method="POST",route="/v2/admin/branches",status="400"}')).to.equal(1);
      expect(value(res.text, 'tars_http_requests_total{method="GET",route="unmatched",status="404"}')).to.equal(1);
      expect(res.text, 'raw URLs never become labels').not.to.include('12345');
      expect(value(res.text, 'tars_http_request_duration_seconds_count{method="POST",route="/v2/admin/branches"}')).to.equal(3);
      expect(value(res.text, 'tars_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/v2/admin/branches"}')).to.equal(3);
      expect(res.text).to.include('# TYPE process_resident_memory_bytes gauge');
    });

    it('when scraped, then the database size is the size of the file and of its WAL', async () => {
      const res = await app.request('GET', '/metrics');
      const file = join(app.dataDir, 'tars.db');
      expect(value(res.text, 'tars_database_size_bytes{file="database"}')).to.equal(statSync(file).size);
      expect(value(res.text, 'tars_database_size_bytes{file="wal"}')).to.equal(statSync(`${file}-wal`).size);
      expect(statSync(file).size).to.be.greaterThan(0);
    });

    it('when another process records report runs and webhook deliveries in the database, then the next scrape counts them', async () => {
      const other = new Sqlite(join(app.dataDir, 'tars.db'));
      other.exec(`
        INSERT INTO tenants (id, name, partner_id) VALUES (900, 'Reports', 0);
        INSERT INTO users (id, tenant_id, email, password_hash, user_role, created_at) VALUES (900, 900, 'r@example.test', 'x', 3, '2026-01-01T00:00:00.000Z');
        INSERT INTO saved_filters (id, tenant_id, user_id, api_url, module, name, created_at) VALUES (900, 900, 900, '/v2/reporting/calls', 'calls', 'F', '2026-01-01T00:00:00.000Z');
      `);
      const run = other.prepare(
        "INSERT INTO report_runs (filter_id, tenant_id, kind, frequency, period_start, period_end, status, next_attempt_at, created_at) VALUES (900, 900, ?, 'daily', ?, '2026-01-02', ?, 0, '2026-01-01')",
      );
      run.run('scheduled', '2026-01-01', 'failed');
      run.run('scheduled', '2026-01-02', 'failed');
      run.run('scheduled', '2026-01-03', 'sent');
      run.run('manual', '2026-01-01', 'sent');
      other.exec(`
        INSERT INTO webhooks (id, tenant_id, type, url, secret, created_at) VALUES (900, 900, 'call.ended', 'http://127.0.0.1:9/', 'whsec_x', '2026-01-01');
        INSERT INTO webhook_deliveries (id, webhook_id, tenant_id, message_id, event_type, payload, status, next_attempt_at, created_at)
          VALUES (900, 900, 900, 'msg_1', 'call.ended', '{}', 'delivered', 0, '2026-01-01'),
                 (901, 900, 900, 'msg_2', 'call.ended', '{}', 'retry', 0, '2026-01-01'),
                 (902, 900, 900, 'msg_3', 'call.ended', '{}', 'retry', 0, '2026-01-01');
        INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code)
          VALUES (900, 1, '2026-01-01', 5, 200), (901, 1, '2026-01-01', 5, 500), (901, 2, '2026-01-01', 5, 500), (902, 1, '2026-01-01', 5, 503);
      `);
      other.close();
      const res = await app.request('GET', '/metrics');
      expect(value(res.text, 'tars_report_runs{kind="scheduled",status="failed"}')).to.equal(2);
      expect(value(res.text, 'tars_report_runs{kind="scheduled",status="sent"}')).to.equal(1);
      expect(value(res.text, 'tars_report_runs{kind="manual",status="sent"}')).to.equal(1);
      expect(value(res.text, 'tars_webhook_deliveries{status="retry"}')).to.equal(2);
      expect(value(res.text, 'tars_webhook_deliveries{status="delivered"}')).to.equal(1);
      expect(value(res.text, 'tars_webhook_attempts{attempt="first"}')).to.equal(3);
      expect(value(res.text, 'tars_webhook_attempts{attempt="retry"}')).to.equal(1);
    });

    it('when a module registers a counter or a scrape-time gauge of its own, then it is served too', async () => {
      const deliveries = new Counter({
        name: 'tars_test_deliveries_total',
        help: 'test',
        labelNames: ['outcome'],
        registers: [app.deps.metrics.registry],
      });
      deliveries.inc({ outcome: 'retried' }, 3);
      let reads = 0;
      registerGauges(app.deps, [{ name: 'tars_test_rows', help: 'test', read: () => [{ value: ++reads * 10 }] }]);
      const first = await app.request('GET', '/metrics');
      expect(value(first.text, 'tars_test_deliveries_total{outcome="retried"}')).to.equal(3);
      expect(value(first.text, 'tars_test_rows')).to.equal(10);
      expect(value((await app.request('GET', '/metrics')).text, 'tars_test_rows'), 'read again at every scrape').to.equal(20);
    });
  });

  it('when TARS_METRICS_TOKEN is set, then a scrape needs it as a bearer token', async () => {
    const token = 'scrape-token-0123456789';
    const app = await startTestApp({ env: { TARS_METRICS_TOKEN: token } });
    try {
      const none = await app.request('GET', '/metrics');
      expect(none.status).to.equal(401);
      expect(none.body).to.include({ name: 'NotAuthenticated', code: 401 });
      expect((await app.request('GET', '/metrics', { headers: { authorization: `Bearer ${token}x` } })).status).to.equal(401);
      const ok = await app.request('GET', '/metrics', { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).to.equal(200);
      expect(ok.text).to.include('tars_http_requests_total');
    } finally {
      await app.close();
    }
  });

  it('when TARS_METRICS is off, then /metrics does not exist', async () => {
    const app = await startTestApp({ env: { TARS_METRICS: 'off' } });
    try {
      const res = await app.request('GET', '/metrics');
      expect(res.status).to.equal(404);
      expect(res.body.message).to.equal('Route GET /metrics not found');
    } finally {
      await app.close();
    }
  });

  it('when TARS_METRICS or TARS_METRICS_TOKEN is wrong, then the configuration is refused', () => {
    expect(() => loadConfig({ TARS_METRICS: 'yes', TARS_METRICS_TOKEN: 'short' }))
      .to.throw(ConfigError)
      .with.property('problems')
      .that.deep.equals([
        'TARS_METRICS must be on or off, got "yes"',
        'TARS_METRICS_TOKEN must be at least 16 characters long, without spaces',
      ]);
    expect(loadConfig({})).to.include({ metrics: true, metricsToken: undefined });
  });
});
