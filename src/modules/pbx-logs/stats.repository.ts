import { reportText, type ReportText } from '../../db/report-sql';
import { EV, hasWaitTime, isAnswered, type EventName } from './queue-log-line';

/** The event codes the stored lines are written with (the queue reports' queries name them): queue-log-line.ts. */
export { EV } from './queue-log-line';

/**
 * reporting.md R5 and R9 as SQL over `queue_events` and `cdr_calls` rows. The same expressions fill the
 * per-hour tables and compute the partial hours at a report's edges, so the two can never disagree.
 */
export const STATS_COLUMNS = [
  'inbound',
  'answered',
  'talk',
  'under30',
  'wait_sum',
  'wait_n',
  'wait_min',
  'wait_max',
  'ring',
  'abandons',
  'abandons_u10',
  'exit_timeout',
  'exit_key',
  'rna',
  'rna_ms',
  'cb_req',
  'cb_ok',
  'cb_fail',
] as const;

export type StatsColumn = (typeof STATS_COLUMNS)[number];

/** Conditions on a queue_events row's event code. */
const isEvent = (name: EventName) => `event = ${EV[name]}`;
/** The answered lines (R5 inboundAnswered), whose call time also counts for their agent (R11). */
export const ANSWERED_EVENTS = `event BETWEEN ${EV.COMPLETEAGENT} AND ${EV.ATTENDEDTRANSFER}`;
const WAITED = `event BETWEEN ${EV.COMPLETEAGENT} AND ${EV.EXITEMPTY}`;

/** The expressions of each column in an engine's SQL (the SQLite text is the one the per-hour rows were always filled with). */
const expressions = (f: ReportText): Readonly<Record<StatsColumn, string>> => ({
  inbound: f.count(isEvent('ENTERQUEUE')),
  answered: f.count(ANSWERED_EVENTS),
  talk: `sum(CASE WHEN ${ANSWERED_EVENTS} THEN talk_time ELSE 0 END)`,
  under30: f.count(`${ANSWERED_EVENTS} AND wait_time <= 30`),
  wait_sum: `sum(CASE WHEN ${WAITED} THEN wait_time ELSE 0 END)`,
  wait_n: f.count(WAITED),
  wait_min: `min(CASE WHEN ${WAITED} THEN wait_time END)`,
  wait_max: `max(CASE WHEN ${WAITED} THEN wait_time END)`,
  ring: `${f.sumInt(`CASE WHEN ${isEvent('CONNECT')} THEN ring_ms ELSE 0 END`)} / 1000`,
  abandons: f.count(isEvent('ABANDON')),
  abandons_u10: f.count(`${isEvent('ABANDON')} AND wait_time < 10`),
  exit_timeout: f.count(isEvent('EXITWITHTIMEOUT')),
  exit_key: f.count(isEvent('EXITWITHKEY')),
  rna: f.count(isEvent('RINGNOANSWER')),
  rna_ms: `sum(CASE WHEN ${isEvent('RINGNOANSWER')} THEN ring_ms ELSE 0 END)`,
  cb_req: f.count(isEvent('CALLBACKREQUEST')),
  cb_ok: f.count(isEvent('CALLBACKSUCCESS')),
  cb_fail: f.count(isEvent('CALLBACKFAILED')),
});

/** The aggregates over queue_events, in STATS_COLUMNS order, each aliased by its column name, in an engine's SQL. */
export const eventAggregates = (f: ReportText): string => {
  const e = expressions(f);
  return STATS_COLUMNS.map((c) => `${e[c]} AS ${c}`).join(', ');
};

/** The same on SQLite (the import's per-hour upserts). */
export const EVENT_AGGREGATES = eventAggregates(reportText('sqlite'));

/** The same aggregates over rows of queue_hour_stats (sums of sums, min of mins, max of maxes). */
export const HOUR_AGGREGATES = STATS_COLUMNS.map((c) =>
  c === 'wait_min' ? 'min(wait_min) AS wait_min' : c === 'wait_max' ? 'max(wait_max) AS wait_max' : `sum(${c}) AS ${c}`,
).join(', ');

/** Events that count in no statistic (membership) are left out of the per-hour rows. */
export const COUNTED_EVENTS = `event < ${EV.ADDMEMBER}`;
/** The lines that show their agent is a member (queue-log-line.ts showsMembership, R15). */
export const SHOWS_MEMBERSHIP = `(event >= ${EV.ADDMEMBER} OR event BETWEEN ${EV.CONNECT} AND ${EV.ATTENDEDTRANSFER} OR event IN (${EV.RINGNOANSWER}, ${EV.RINGCANCELED}))`;

/**
 * The same sums kept in memory while a chunk is imported, then added to the per-hour rows in one upsert
 * per hour: cheaper than reading the chunk's rows back. Mirrors `expressions` exactly (a test holds the two
 * to each other): index i of a vector is STATS_COLUMNS[i], wait_min/wait_max are ±Infinity when no wait.
 */
const COL = Object.fromEntries(STATS_COLUMNS.map((c, i) => [c, i])) as Record<StatsColumn, number>;

export function emptyVector(): Float64Array {
  const v = new Float64Array(STATS_COLUMNS.length);
  v[COL.wait_min] = Infinity;
  v[COL.wait_max] = -Infinity;
  return v;
}

const bump = (v: Float64Array, i: number, by = 1) => {
  v[i] = (v[i] as number) + by;
};

/** Adds one stored line to a vector, as `expressions` would count it. */
export function addEvent(
  v: Float64Array,
  row: { readonly event: number; readonly waitTime: number; readonly talkTime: number; readonly ringMs: number },
): void {
  const { event, waitTime } = row;
  if (event === EV.ENTERQUEUE) bump(v, COL.inbound);
  else if (event === EV.CONNECT) bump(v, COL.ring, row.ringMs / 1000);
  else if (event === EV.RINGNOANSWER) {
    bump(v, COL.rna);
    bump(v, COL.rna_ms, row.ringMs);
  } else if (event === EV.CALLBACKREQUEST) bump(v, COL.cb_req);
  else if (event === EV.CALLBACKSUCCESS) bump(v, COL.cb_ok);
  else if (event === EV.CALLBACKFAILED) bump(v, COL.cb_fail);
  if (!hasWaitTime(event)) return;
  bump(v, COL.wait_sum, waitTime);
  bump(v, COL.wait_n);
  v[COL.wait_min] = Math.min(v[COL.wait_min] as number, waitTime);
  v[COL.wait_max] = Math.max(v[COL.wait_max] as number, waitTime);
  if (isAnswered(event)) {
    bump(v, COL.answered);
    bump(v, COL.talk, row.talkTime);
    if (waitTime <= 30) bump(v, COL.under30);
  } else if (event === EV.ABANDON) {
    bump(v, COL.abandons);
    if (waitTime < 10) bump(v, COL.abandons_u10);
  } else if (event === EV.EXITWITHTIMEOUT) bump(v, COL.exit_timeout);
  else if (event === EV.EXITWITHKEY) bump(v, COL.exit_key);
}

/** The vector as statement parameters, in STATS_COLUMNS order (no wait: null min and max, as SQL gives). */
export function vectorParams(v: Float64Array): (number | null)[] {
  return Array.from(v, (x, i) => ((i === COL.wait_min || i === COL.wait_max) && !Number.isFinite(x) ? null : x));
}

/** The R9 sums over the outbound calls `c` of `outboundCallsOf`, in an engine's SQL. */
export const outboundSums = (f: ReportText): string =>
  `count(*) AS total, ${f.count("c.disposition = 'ANSWERED'")} AS answered, sum(CASE WHEN c.disposition = 'ANSWERED' THEN c.billsec ELSE 0 END) AS talk`;

/** The same on SQLite (the import's per-hour upserts). */
export const OUTBOUND_SUMS = outboundSums(reportText('sqlite'));

/**
 * reporting.md R9, written once: FROM and WHERE of the outbound calls `c` of tenant `tenant` placed by a
 * member of queue `queue` during its membership `s`, started in [from, to) (to: no end when absent). The
 * arguments are SQL expressions (parameters or columns). Sessions of one (queue, agent) never overlap, so
 * each call counts at most once per queue.
 */
export function outboundCallsOf(
  at: {
    readonly queue: string;
    readonly tenant: string;
    readonly from: string;
    readonly to?: string;
  },
  f: ReportText = reportText('sqlite'),
): string {
  const before = at.to === undefined ? '' : ` AND c.start_at < ${at.to}`;
  return `agent_sessions s
    JOIN cdr_calls c ON c.tenant_id = ${at.tenant} AND c.src_agent = s.agent AND c.via_queue = 0 AND c.outbound_r9 = 1
      AND c.start_at >= ${f.greatest('s.start_at', at.from)} AND (s.end_at IS NULL OR c.start_at < s.end_at)${before}
    WHERE s.queue_id = ${at.queue} AND (s.end_at IS NULL OR s.end_at > ${at.from})${at.to === undefined ? '' : ` AND s.start_at < ${at.to}`}`;
}
