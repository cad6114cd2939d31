import { statSync } from 'node:fs';
import { Gauge } from 'prom-client';
import type { AppDeps } from '../deps';
import { importLineCounts } from '../modules/pbx-logs/pbx-logs.repository';
import { reportRunCounts } from '../modules/scheduled-reports/report-runs.repository';
import { attemptCounts, deliveryCounts } from '../modules/webhooks/deliveries.repository';

/** One sample of a gauge: its labels and its value. */
export interface Sample {
  readonly labels?: Record<string, string>;
  readonly value: number;
}

/**
 * A gauge read at scrape time, usually from a table: what happened in any process (the server, `tars import`)
 * and before a restart counts. To add one, add an entry to GAUGES; read() should be one cheap query.
 */
export interface ScrapedGauge {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly string[];
  read(deps: AppDeps): Promise<Sample[]> | Sample[];
}

const databaseSize: ScrapedGauge = {
  name: 'tars_database_size_bytes',
  help: 'Size of the SQLite database file and of its write-ahead log',
  labelNames: ['file'],
  read: ({ database }) => [
    { labels: { file: 'database' }, value: sizeOf(database.file) },
    { labels: { file: 'wal' }, value: sizeOf(`${database.file}-wal`) },
  ],
};

const reportRuns: ScrapedGauge = {
  name: 'tars_report_runs',
  help: 'Runs of saved-filter reports recorded in the database, by kind (scheduled, manual) and status (sent, failed, retry …)',
  labelNames: ['kind', 'status'],
  async read({ database }) {
    const rows = await reportRunCounts(database.db);
    return rows.map((r) => ({ labels: { kind: r.kind, status: r.status }, value: Number(r.n) }));
  },
};

const webhookDeliveries: ScrapedGauge = {
  name: 'tars_webhook_deliveries',
  help: 'Webhook deliveries in the outbox, by status (pending, delivering, retry, delivered, failed, gone)',
  labelNames: ['status'],
  async read({ database }) {
    const rows = await deliveryCounts(database.db);
    return rows.map((r) => ({ labels: { status: r.status }, value: Number(r.n) }));
  },
};

const webhookAttempts: ScrapedGauge = {
  name: 'tars_webhook_attempts',
  help: 'HTTP attempts of webhook deliveries kept in the database: first attempts and retries',
  labelNames: ['attempt'],
  async read({ database }) {
    const row = await attemptCounts(database.db);
    const retries = Number(row.retries ?? 0);
    return [
      { labels: { attempt: 'first' }, value: Number(row.all) - retries },
      { labels: { attempt: 'retry' }, value: retries },
    ];
  },
};

const importLines: ScrapedGauge = {
  name: 'tars_import_lines',
  help: 'PBX log lines of all imports (CLI, --follow, HTTP ingest), by log kind (queue-log, cdr), outcome (imported, duplicate, skipped) and skip reason',
  labelNames: ['kind', 'outcome', 'reason'],
  async read({ database }) {
    const rows = await importLineCounts(database.db);
    return rows.map((r) => ({ labels: { kind: r.kind, outcome: r.outcome, reason: r.reason }, value: r.lines }));
  },
};

const amiLinks: ScrapedGauge = {
  name: 'tars_ami_link',
  help: 'Each PBX of TARS_AMI_URL (by its URL without the secret): 1 for the state its AMI link is in (connecting, connected, down, refused, stopped)',
  labelNames: ['pbx', 'state'],
  read: ({ live }) => live.pbxs.map((p) => ({ labels: { pbx: p.label, state: p.status.state }, value: 1 })),
};

const amiHolder: ScrapedGauge = {
  name: 'tars_ami_link_held',
  help: 'Each PBX of TARS_AMI_URL: 1 when this instance holds its AMI link, 0 when another instance on the same PostgreSQL database does (docs/live-queues.md)',
  labelNames: ['pbx'],
  read: ({ live }) => live.pbxs.map((p) => ({ labels: { pbx: p.label }, value: p.holdsLink ? 1 : 0 })),
};

const amiEventAge: ScrapedGauge = {
  name: 'tars_ami_last_event_age_seconds',
  help: 'Seconds since the last AMI event or snapshot of each PBX (absent before the first)',
  labelNames: ['pbx'],
  read: ({ live, clock }) =>
    live.pbxs.flatMap((p) => (p.lastEventAt ? [{ labels: { pbx: p.label }, value: (clock.now() - p.lastEventAt.getTime()) / 1000 }] : [])),
};

/** Every gauge read at scrape time. */
export const GAUGES: readonly ScrapedGauge[] = [
  databaseSize,
  reportRuns,
  webhookDeliveries,
  webhookAttempts,
  importLines,
  amiLinks,
  amiHolder,
  amiEventAge,
];

export function registerGauges(deps: AppDeps, gauges: readonly ScrapedGauge[] = GAUGES): void {
  for (const g of gauges) {
    new Gauge({
      name: g.name,
      help: g.help,
      labelNames: g.labelNames ?? [],
      registers: [deps.metrics.registry],
      async collect() {
        const samples = await g.read(deps);
        this.reset();
        for (const s of samples) this.set(s.labels ?? {}, s.value);
      },
    });
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
