// The supervisor reports of reporting.md R19–R24 in the reporting benchmark (scripts/bench-reporting.ts calls
// supervisorReports() on its data directory). Each report is timed in-process (the service function, no HTTP
// or JSON) and over HTTP, warm, against a floor in the same run: hand-written SQL over the same stored rows
// giving the same figures (what a report writer who knew the schema would run; the parts of a report no single
// statement gives are named where they are left out). Then a year of lost calls is exported as CSV and XLSX by
// `tars serve` running under a small --max-old-space-size, its heap sampled from /metrics: the bounded heap.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import type { Caller } from '../src/access/caller';
import type { AppDeps } from '../src/deps';
import { agentsReport } from '../src/modules/queue-reports/agents.service';
import { agentSessionsReport } from '../src/modules/queue-reports/agent-sessions.service';
import { lostCallsReport } from '../src/modules/queue-reports/lost-calls.service';
import { queueStats } from '../src/modules/queue-reports/queue-stats.service';
import { serviceLevelReport } from '../src/modules/queue-reports/service-level.service';
import { localDay, startOfDay } from '../src/time/zone';

const TZ = 'America/Chicago';
const QUEUE_IDS = Array.from({ length: 20 }, (_, i) => i + 1);
const QUEUES = QUEUE_IDS.join(', ');
const dayStart = (date: string) => startOfDay(TZ, localDay(TZ, Date.parse(`${date}T12:00:00Z`) / 1000));
const YEAR = { s: dayStart('2025-01-01'), e: dayStart('2026-01-01') };
const JULY = { s: dayStart('2025-07-01'), e: dayStart('2025-08-01') };
/** Chicago's daylight time in 2025: the floors' local day is the UTC time moved by the offset in force. */
const DST = { from: Date.parse('2025-03-09T08:00:00Z') / 1000, to: Date.parse('2025-11-02T07:00:00Z') / 1000 };
const LOCAL = `(anchor + CASE WHEN anchor >= ${DST.from} AND anchor < ${DST.to} THEN -18000 ELSE -21600 END)`;
const MONTHS = Array.from({ length: 13 }, (_, m) => dayStart(`${m === 12 ? 2026 : 2025}-${String((m % 12) + 1).padStart(2, '0')}-01`));
const monthOf = (column: string) =>
  `CASE ${MONTHS.slice(1, 12)
    .map((t, i) => `WHEN ${column} < ${t} THEN ${i}`)
    .join(' ')} ELSE 11 END`;
const monthsJson = JSON.stringify(MONTHS.slice(0, 12).map((s, i) => ({ m: i, s, e: MONTHS[i + 1] })));
const WITH_MONTHS = `WITH months AS MATERIALIZED (SELECT value ->> 'm' AS m, value ->> 's' AS s, value ->> 'e' AS e FROM json_each('${monthsJson}'))`;

const ANSWERED = 'event BETWEEN 3 AND 6';
const ABANDONED = 'event IN (7, 8, 10)';
/** R19 at the queues' own 30 s and at 20 and 60 s, by the group's key. */
const levelSql = (key: string, range: { s: number; e: number }) => `
  SELECT queue_id, ${key} AS k, sum(event = 1), sum(${ANSWERED}), sum(${ABANDONED}), sum(event = 7 AND wait_time < 10),
    ${[30, 20, 60].map((t) => `sum(${ANSWERED} AND wait_time <= ${t}), sum(${ABANDONED} AND wait_time <= ${t})`).join(', ')}
  FROM queue_events WHERE queue_id IN (${QUEUES}) AND anchor >= ${range.s} AND anchor < ${range.e} AND event < 20
  GROUP BY queue_id, k ORDER BY queue_id, k`;

/** The same figures grouped by spans given as a table (one per queue and local day), the way a report writer joins periods. */
const DAY_SPANS = JSON.stringify(
  QUEUE_IDS.flatMap((q) =>
    Array.from({ length: 365 }, (_, d) => ({
      q,
      s: startOfDay(TZ, localDay(TZ, YEAR.s) + d),
      e: startOfDay(TZ, localDay(TZ, YEAR.s) + d + 1),
    })),
  ).map((x, span) => ({ span, ...x })),
);
const levelBySpans = `
  WITH sp AS MATERIALIZED (SELECT value ->> 'span' AS span, value ->> 'q' AS q, value ->> 's' AS lo, value ->> 'e' AS hi FROM json_each(?) ORDER BY 1)
  SELECT sp.span, sum(event = 1), sum(${ANSWERED}), sum(${ABANDONED}), sum(event = 7 AND wait_time < 10),
    ${[30, 20, 60].map((t) => `sum(${ANSWERED} AND wait_time <= ${t}), sum(${ABANDONED} AND wait_time <= ${t})`).join(', ')}
  FROM sp CROSS JOIN queue_events e WHERE e.queue_id = sp.q AND e.anchor >= sp.lo AND e.anchor < sp.hi AND event < 20 GROUP BY sp.span`;

const clipped = (range: { s: number; e: number }, s = 'start_at', e = `coalesce(end_at, ${range.e})`) =>
  `max(0, min(${e}, m.e) - max(${s}, m.s))`;
/** R21 for a year by month: calls, memberships, pauses, outbound calls and talk outside queues, and the logins' union. */
const agentsSql = [
  `SELECT queue_id, agent, ${monthOf('anchor')} AS m, sum(${ANSWERED}), sum(event = 3), sum(event = 4), sum(CASE WHEN ${ANSWERED} THEN talk_time END),
     sum(CASE WHEN ${ANSWERED} THEN wait_time END), sum(event = 11), sum(CASE WHEN event = 11 THEN ring_ms END), sum(CASE WHEN event = 2 THEN ring_ms END)
   FROM queue_events WHERE queue_id IN (${QUEUES}) AND anchor >= ${YEAR.s} AND anchor < ${YEAR.e} AND event IN (2, 3, 4, 5, 6, 11)
   GROUP BY queue_id, agent, m`,
  `${WITH_MONTHS} SELECT 'session', queue_id, agent, m.m, '', sum(${clipped(YEAR)}) FROM months m
     JOIN agent_sessions ON queue_id IN (${QUEUES}) AND start_at < m.e AND (end_at IS NULL OR end_at > m.s) GROUP BY queue_id, agent, m.m
   UNION ALL SELECT 'pause', queue_id, agent, m.m, reason, sum(${clipped(YEAR)}) FROM months m
     JOIN agent_pauses ON queue_id IN (${QUEUES}) AND start_at < m.e AND (end_at IS NULL OR end_at > m.s) GROUP BY queue_id, agent, m.m, reason`,
  `SELECT s.queue_id, s.agent, ${monthOf('c.start_at')} AS m, count(*), sum(c.disposition = 'ANSWERED'), sum(CASE WHEN c.disposition = 'ANSWERED' THEN c.billsec END)
   FROM agent_sessions s JOIN cdr_calls c ON c.tenant_id = 1 AND c.src_agent = s.agent AND c.via_queue = 0 AND c.outbound_r9 = 1
     AND c.start_at >= max(s.start_at, ${YEAR.s}) AND (s.end_at IS NULL OR c.start_at < s.end_at) AND c.start_at < ${YEAR.e}
   WHERE s.queue_id IN (${QUEUES}) AND (s.end_at IS NULL OR s.end_at > ${YEAR.s}) AND s.start_at < ${YEAR.e} GROUP BY s.queue_id, s.agent, m`,
  `SELECT src_agent, ${monthOf('start_at')} AS m, count(*), sum(disposition = 'ANSWERED') FROM cdr_calls INDEXED BY cdr_calls_src_agent
   WHERE tenant_id = 1 AND src_agent IN (SELECT agent FROM agent_sessions WHERE queue_id IN (${QUEUES})) AND start_at >= ${YEAR.s} AND start_at < ${YEAR.e}
     AND via_queue = 0 AND outbound_r9 = 1 GROUP BY src_agent, m`,
  `SELECT agent, m, sum(billsec) FROM (
     SELECT id, src_agent AS agent, ${monthOf('start_at')} AS m, billsec FROM cdr_calls INDEXED BY cdr_calls_src_agent
       WHERE tenant_id = 1 AND src_agent IN (SELECT agent FROM agent_sessions WHERE queue_id IN (${QUEUES})) AND start_at >= ${YEAR.s} AND start_at < ${YEAR.e} AND disposition = 'ANSWERED' AND via_queue = 0
     UNION SELECT id, dst_agent, ${monthOf('start_at')}, billsec FROM cdr_calls INDEXED BY cdr_calls_dst_agent
       WHERE tenant_id = 1 AND dst_agent IN (SELECT agent FROM agent_sessions WHERE queue_id IN (${QUEUES})) AND start_at >= ${YEAR.s} AND start_at < ${YEAR.e} AND disposition = 'ANSWERED' AND via_queue = 0
   ) GROUP BY agent, m`,
  // the union of each agent's memberships (gaps and islands), by month
  `WITH s AS (SELECT agent, max(start_at, ${YEAR.s}) AS a, min(coalesce(end_at, ${YEAR.e}), ${YEAR.e}) AS b FROM agent_sessions
       WHERE queue_id IN (${QUEUES}) AND start_at < ${YEAR.e} AND (end_at IS NULL OR end_at > ${YEAR.s})),
     p AS (SELECT agent, a, b, max(b) OVER (PARTITION BY agent ORDER BY a ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM s),
     g AS (SELECT agent, a, b, sum(before IS NULL OR a > before) OVER (PARTITION BY agent ORDER BY a) AS island FROM p),
     u AS (SELECT agent, min(a) AS a, max(b) AS b FROM g GROUP BY agent, island)
   , months AS (SELECT value ->> 'm' AS m, value ->> 's' AS s, value ->> 'e' AS e FROM json_each('${monthsJson}'))
   SELECT agent, m.m, sum(max(0, min(u.b, m.e) - max(u.a, m.s))) FROM months m JOIN u ON u.a < m.e AND u.b > m.s GROUP BY agent, m.m`,
];

/**
 * R21 for queue 1 over July by the hour: the agents' call lines by hour, their memberships and pauses as stored (the
 * hours they cover are the client's arithmetic), the outbound calls placed while a member and all of them, talk
 * outside queues, each by agent and hour, and the agents' extensions. (One queue: the union of logins over the
 * requested queues is the memberships themselves.)
 */
const JULY_AGENTS = `SELECT agent FROM agent_sessions WHERE queue_id = 1 AND start_at < ${JULY.e} AND (end_at IS NULL OR end_at > ${JULY.s})`;
const agentsHourlySql = [
  `SELECT agent, anchor / 3600 AS h, sum(${ANSWERED}), sum(event = 3), sum(event = 4), sum(CASE WHEN ${ANSWERED} THEN talk_time END),
     sum(CASE WHEN ${ANSWERED} THEN wait_time END), sum(event = 11), sum(CASE WHEN event = 11 THEN ring_ms END), sum(CASE WHEN event = 2 THEN ring_ms END)
   FROM queue_events WHERE queue_id = 1 AND anchor >= ${JULY.s} AND anchor < ${JULY.e} AND event IN (2, 3, 4, 5, 6, 11)
   GROUP BY agent, h`,
  `SELECT agent, start_at, end_at FROM agent_sessions WHERE queue_id = 1 AND start_at < ${JULY.e} AND (end_at IS NULL OR end_at > ${JULY.s})`,
  `SELECT agent, start_at, end_at, reason FROM agent_pauses WHERE queue_id = 1 AND start_at < ${JULY.e} AND (end_at IS NULL OR end_at > ${JULY.s})`,
  `SELECT s.agent, c.start_at / 3600 AS h, count(*), sum(c.disposition = 'ANSWERED'), sum(CASE WHEN c.disposition = 'ANSWERED' THEN c.billsec END)
   FROM agent_sessions s JOIN cdr_calls c ON c.tenant_id = 1 AND c.src_agent = s.agent AND c.via_queue = 0 AND c.outbound_r9 = 1
     AND c.start_at >= max(s.start_at, ${JULY.s}) AND (s.end_at IS NULL OR c.start_at < s.end_at) AND c.start_at < ${JULY.e}
   WHERE s.queue_id = 1 AND (s.end_at IS NULL OR s.end_at > ${JULY.s}) AND s.start_at < ${JULY.e} GROUP BY s.agent, h`,
  `SELECT src_agent, start_at / 3600 AS h, count(*), sum(disposition = 'ANSWERED'), sum(CASE WHEN disposition = 'ANSWERED' THEN billsec END)
   FROM cdr_calls INDEXED BY cdr_calls_src_agent WHERE tenant_id = 1 AND src_agent IN (${JULY_AGENTS}) AND start_at >= ${JULY.s} AND start_at < ${JULY.e}
     AND via_queue = 0 AND outbound_r9 = 1 GROUP BY src_agent, h`,
  `SELECT agent, h, sum(billsec) FROM (
     SELECT id, src_agent AS agent, start_at / 3600 AS h, billsec FROM cdr_calls INDEXED BY cdr_calls_src_agent
       WHERE tenant_id = 1 AND src_agent IN (${JULY_AGENTS}) AND start_at >= ${JULY.s} AND start_at < ${JULY.e} AND disposition = 'ANSWERED' AND via_queue = 0
     UNION SELECT id, dst_agent, start_at / 3600, billsec FROM cdr_calls INDEXED BY cdr_calls_dst_agent
       WHERE tenant_id = 1 AND dst_agent IN (${JULY_AGENTS}) AND start_at >= ${JULY.s} AND start_at < ${JULY.e} AND disposition = 'ANSWERED' AND via_queue = 0
   ) GROUP BY agent, h`,
  `SELECT a.id, a.peer, e.id, e.ext_num, e.ext_name FROM agents a LEFT JOIN extensions e ON e.tenant_id = 1 AND e.peer_name = a.peer
   WHERE a.id IN (${JULY_AGENTS})`,
];

/** R22 over the year in one statement: the lost calls with their callers and first recoveries, oldest first. */
const LOST_SQL = `
  SELECT l.*, cb.start_at, a.peer, ex.id,
    (SELECT e.anchor || '|' || e.queue_id || '|' || e.callid FROM queue_events e INDEXED BY queue_events_caller
      WHERE e.caller_key = l.k AND e.caller_key IS NOT NULL AND e.anchor >= l.left_at AND e.anchor <= l.left_at + 86400 AND e.event = 1
        AND EXISTS (SELECT 1 FROM queue_events d WHERE d.queue_id = e.queue_id AND d.anchor = e.anchor AND d.callid = e.callid AND d.event BETWEEN 3 AND 6)
      ORDER BY e.anchor, e.queue_id, e.callid LIMIT 1) AS called_in
  FROM (
    SELECT x.queue_id, x.callid, x.anchor, x.event, x.wait_time, x.position, x.orig_position, x.anchor + x.wait_time AS left_at,
      (SELECT e.caller FROM queue_events e WHERE e.queue_id = x.queue_id AND e.anchor = x.anchor AND e.event = 1 AND e.callid = x.callid LIMIT 1) AS caller,
      (SELECT e.caller_key FROM queue_events e WHERE e.queue_id = x.queue_id AND e.anchor = x.anchor AND e.event = 1 AND e.callid = x.callid LIMIT 1) AS k
    FROM queue_events x WHERE x.queue_id IN (${QUEUES}) AND x.anchor >= ${YEAR.s} AND x.anchor < ${YEAR.e} AND x.event BETWEEN 7 AND 10
      AND NOT (x.event = 9 AND EXISTS (SELECT 1 FROM queue_events n WHERE n.queue_id IN (${QUEUES}) AND n.anchor >= x.time AND n.anchor <= x.time + 60 AND n.event = 1 AND n.callid = x.callid))
  ) l
  LEFT JOIN cdr_calls cb ON cb.id = (SELECT c.id FROM cdr_calls c INDEXED BY cdr_calls_callback WHERE c.tenant_id = 1 AND c.destination_key = l.k
      AND c.destination_key IS NOT NULL AND c.start_at >= l.left_at AND c.start_at <= l.left_at + 86400 AND c.last_app = 'Dial' AND c.disposition = 'ANSWERED'
      AND c.src_ext IS NOT NULL ORDER BY c.start_at, c.id LIMIT 1)
  LEFT JOIN agents a ON a.id = cb.src_agent LEFT JOIN extensions ex ON ex.tenant_id = 1 AND ex.ext_num = cb.src_ext
  ORDER BY l.anchor, l.callid, l.queue_id`;

/** R23 over the year: every membership and pause clipped, with the agent's extension. */
const SESSIONS_SQL = `
  SELECT 'session', s.queue_id, a.peer, e.id, e.ext_name, max(s.start_at, ${YEAR.s}), min(coalesce(s.end_at, ${YEAR.e}), ${YEAR.e}), '' FROM agent_sessions s
    JOIN agents a ON a.id = s.agent LEFT JOIN extensions e ON e.tenant_id = 1 AND e.peer_name = a.peer
    WHERE s.queue_id IN (${QUEUES}) AND s.start_at < ${YEAR.e} AND (s.end_at IS NULL OR s.end_at > ${YEAR.s})
  UNION ALL SELECT 'pause', s.queue_id, a.peer, e.id, e.ext_name, max(s.start_at, ${YEAR.s}), min(coalesce(s.end_at, ${YEAR.e}), ${YEAR.e}), s.reason FROM agent_pauses s
    JOIN agents a ON a.id = s.agent LEFT JOIN extensions e ON e.tenant_id = 1 AND e.peer_name = a.peer
    WHERE s.queue_id IN (${QUEUES}) AND s.start_at < ${YEAR.e} AND (s.end_at IS NULL OR s.end_at > ${YEAR.s})
  ORDER BY 3, 2, 6`;

const STATS_HOURLY_FLOOR = `
  SELECT h.*, o.total, o.answered, o.talk FROM queue_hour_stats h LEFT JOIN queue_outbound_hour o ON o.queue_id = h.queue_id AND o.hour = h.hour
  WHERE h.queue_id IN (${QUEUES}) AND h.hour >= ${JULY.s / 3600} AND h.hour < ${JULY.e / 3600} ORDER BY h.queue_id, h.hour`;

/** Rounds of each timing (after one to warm up); the medians count. */
const ROUNDS = 5;
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}
type Post = (path: string, body: unknown) => Promise<ArrayBuffer>;

export interface SupervisorFigures {
  [report: string]: { serviceMs: number; httpMs: number; floorMs: number; rows: number; partialMs?: number };
}

export async function supervisorReports(
  deps: AppDeps,
  caller: Caller,
  raw: SqliteDatabase.Database,
  post: Post,
  /** Only the cases whose name contains this text (all without it). */
  only?: string,
): Promise<SupervisorFigures> {
  const year = { queueId: QUEUE_IDS, startDate: '2025-01-01', endDate: '2025-12-31' };
  const july = { queueId: QUEUE_IDS, startDate: '2025-07-01', endDate: '2025-07-31' };
  const d = { db: deps.database.db, clock: deps.clock };
  const cases: {
    name: string;
    path: string;
    body: Record<string, unknown>;
    run: () => Promise<unknown>;
    rows: (r: never) => number;
    /** Alternative sets of statements (with their parameters) giving the figures: the fastest is the floor. */
    floor: (string | [string, ...unknown[]])[][];
    /** Statements giving only part of the figures, timed in the same turns for comparison (not a floor). */
    partial?: string[];
  }[] = [
    {
      name: 'stats, hourly, 20 queues, July (31 days)',
      path: '/v2/reporting/queues/stats',
      body: { ...july, distribution: 'hourly' },
      run: () => queueStats(d, caller, { ...july, distribution: 'hourly' }),
      rows: (r: { results: unknown[] }) => r.results.length,
      floor: [[STATS_HOURLY_FLOOR]],
    },
    {
      name: 'service-level, daily, 20 queues, 2025',
      path: '/v2/reporting/queues/service-level',
      body: { ...year, distribution: 'daily', serviceLevelThresholds: [20, 60] },
      run: () => serviceLevelReport(d, caller, { ...year, distribution: 'daily', serviceLevelThresholds: [20, 60] }),
      rows: (r: { results: unknown[] }) => r.results.length,
      floor: [[levelSql(`${LOCAL} / 86400`, YEAR)], [[levelBySpans, DAY_SPANS]]],
    },
    {
      name: 'service-level, hourly, 20 queues, July (31 days)',
      path: '/v2/reporting/queues/service-level',
      body: { ...july, distribution: 'hourly', serviceLevelThresholds: [20, 60] },
      run: () => serviceLevelReport(d, caller, { ...july, distribution: 'hourly', serviceLevelThresholds: [20, 60] }),
      rows: (r: { results: unknown[] }) => r.results.length,
      floor: [[levelSql('anchor / 3600', JULY)]],
    },
    {
      name: 'agents, monthly, 20 queues, 2025',
      path: '/v2/reporting/queues/agents',
      body: { ...year, distribution: 'monthly' },
      run: () => agentsReport(d, caller, { ...year, distribution: 'monthly' }),
      rows: (r: { results: unknown[] }) => r.results.length,
      floor: [agentsSql],
    },
    {
      name: 'agents, hourly, queue 1, July (31 days)',
      path: '/v2/reporting/queues/agents',
      body: { ...july, queueId: [1], distribution: 'hourly' },
      run: () => agentsReport(d, caller, { ...july, queueId: [1], distribution: 'hourly' }),
      rows: (r: { results: unknown[] }) => r.results.length,
      floor: [agentsHourlySql],
      // the floor of the runs before 2026-11-27: three of those reads, with counts for sums and no outbound calls,
      // talk outside queues or names; timed beside it so that the ratios of those runs can be compared
      partial: [
        `SELECT agent, anchor / 3600, count(*) FROM queue_events WHERE queue_id = 1 AND anchor >= ${JULY.s} AND anchor < ${JULY.e} AND event IN (2, 3, 4, 5, 6, 11) GROUP BY agent, anchor / 3600`,
        agentsHourlySql[1] as string,
        agentsHourlySql[2] as string,
      ],
    },
    {
      name: 'lost-calls, 20 queues, 2025 (first page, summary of the year)',
      path: '/v2/reporting/queues/lost-calls',
      body: year,
      run: () => lostCallsReport(d, caller, year),
      rows: (r: { total: number }) => r.total,
      floor: [[LOST_SQL]],
    },
    {
      name: 'agent-sessions, 20 queues, 2025',
      path: '/v2/reporting/queues/agent-sessions',
      body: year,
      run: () => agentSessionsReport(d, caller, year),
      rows: (r: unknown[]) => r.length,
      floor: [[SESSIONS_SQL]],
    },
  ];
  const out: SupervisorFigures = {};
  for (const c of cases.filter((x) => only === undefined || x.name.includes(only))) {
    const alternatives = c.floor.map((set) =>
      set.map((st) =>
        typeof st === 'string' ? { statement: raw.prepare(st), args: [] } : { statement: raw.prepare(st[0]), args: st.slice(1) },
      ),
    );
    const partial = (c.partial ?? []).map((st) => raw.prepare(st));
    const rows = c.rows((await c.run()) as never);
    // The report, its floors and the request take turns, round after round: on a machine shared with other work, each
    // of them meets the same load (timed one after the other, the same statement varied threefold between minutes).
    const runs = [
      c.run,
      () => post(c.path, c.body),
      ...(partial.length > 0 ? [() => partial.forEach((x) => x.all())] : []),
      ...alternatives.map((set) => () => set.forEach((x) => x.statement.all(...x.args))),
    ];
    const times: number[][] = runs.map(() => []);
    for (let round = 0; round < ROUNDS + 1; round++)
      for (const [i, run] of runs.entries()) {
        const t = performance.now();
        await run();
        if (round > 0) (times[i] as number[]).push(performance.now() - t); // round 0 warms up
      }
    const [serviceMs, httpMs, ...others] = times.map((t) => Math.round(median(t) * 10) / 10) as [number, number, ...number[]];
    const floors = partial.length > 0 ? others.slice(1) : others;
    out[c.name] = { rows, serviceMs, floorMs: Math.min(...floors), httpMs, ...(partial.length > 0 ? { partialMs: others[0] } : {}) };
    console.log(`  ${c.name}: ${JSON.stringify(out[c.name])}`);
  }
  return out;
}

/**
 * A year of lost calls exported by `tars serve` under --max-old-space-size=HEAP_MB, as CSV and as XLSX: the
 * rows, bytes and seconds, and the highest heap and resident memory /metrics showed while it ran.
 */
export async function boundedExport(root: string, dataDir: string, heapMb = 64) {
  const child = spawn(
    process.execPath,
    [`--max-old-space-size=${heapMb}`, join(root, 'dist/tars.cjs'), 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir],
    {
      env: { ...process.env, TARS_LOG_LEVEL: 'warn', TARS_METRICS: 'on' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening on (http:\/\/[^\s/]+)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`tars serve exited (${code})`)));
  });
  try {
    const login = await fetch(`${url}/v2/authentication`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@bench.example', password: 'benchmark-password' }),
    });
    const token = ((await login.json()) as { accessToken: string }).accessToken;
    const metric = async (name: string) =>
      Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await (await fetch(`${url}/metrics`)).text())?.[1] ?? 0);
    const results: Record<
      string,
      { rows: number; complete: boolean; megabytes: number; seconds: number; peakHeapMb: number; peakRssMb: number }
    > = {};
    for (const format of ['csv', 'xlsx'] as const) {
      let peakHeap = 0;
      let peakRss = 0;
      let sampling = true;
      // One sample at a time (a sample asked every 100 ms whatever the last one did piled up requests on a busy server).
      const sampler = (async () => {
        while (sampling) {
          const [h, r] = await Promise.all([metric('nodejs_heap_size_used_bytes'), metric('process_resident_memory_bytes')]).catch(() => [
            0, 0,
          ]);
          peakHeap = Math.max(peakHeap, h as number);
          peakRss = Math.max(peakRss, r as number);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      })();
      const started = performance.now();
      const res = await fetch(`${url}/v2/reporting/queues/lost-calls?format=${format}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ queueId: QUEUE_IDS, startDate: '2025-01-01', endDate: '2025-12-31' }),
      });
      if (res.status !== 201 || !res.body) throw new Error(`export ${format}: ${res.status}`);
      let bytes = 0;
      let lines = 0;
      let tail = Buffer.alloc(0); // an XLSX is whole when it ends with a zip's end of central directory (22 bytes, no comment)
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        if (format === 'csv') for (const b of chunk) if (b === 10) lines++;
        tail = Buffer.concat([tail, chunk]).subarray(-22);
      }
      const seconds = (performance.now() - started) / 1000;
      sampling = false;
      await sampler;
      results[format] = {
        rows: format === 'csv' ? lines - 1 : NaN,
        complete: format === 'csv' ? lines > 1 : tail.readUInt32LE(0) === 0x06054b50,
        megabytes: Math.round(bytes / 1e5) / 10,
        seconds: Math.round(seconds * 10) / 10,
        peakHeapMb: Math.round(peakHeap / 1e6),
        peakRssMb: Math.round(peakRss / 1e6),
      };
      console.log(`  lost calls of 2025 as ${format} under --max-old-space-size=${heapMb}: ${JSON.stringify(results[format])}`);
    }
    return { heapMb, ...results, serverAlive: child.exitCode === null && child.signalCode === null };
  } finally {
    child.kill('SIGTERM');
  }
}
