/**
 * reporting.md R5 as SQL aggregates over `queue_events` rows (event codes of queue-log-line.ts: answered
 * 3..6, events with a wait time 3..10, CONNECT 2, ABANDON 7, EXITWITHTIMEOUT 8, EXITWITHKEY 9,
 * RINGNOANSWER 11, callbacks 12..14). The same expressions fill the per-hour table and compute the partial
 * hours at a report's edges, so the two can never disagree.
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

const EXPRESSIONS: Readonly<Record<StatsColumn, string>> = {
  inbound: 'sum(event = 1)',
  answered: 'sum(event BETWEEN 3 AND 6)',
  talk: 'sum(CASE WHEN event BETWEEN 3 AND 6 THEN b ELSE 0 END)',
  under30: 'sum(event BETWEEN 3 AND 6 AND a <= 30)',
  wait_sum: 'sum(CASE WHEN event BETWEEN 3 AND 10 THEN a ELSE 0 END)',
  wait_n: 'sum(event BETWEEN 3 AND 10)',
  wait_min: 'min(CASE WHEN event BETWEEN 3 AND 10 THEN a END)',
  wait_max: 'max(CASE WHEN event BETWEEN 3 AND 10 THEN a END)',
  ring: 'sum(CASE WHEN event = 2 THEN a ELSE 0 END)',
  abandons: 'sum(event = 7)',
  abandons_u10: 'sum(event = 7 AND a < 10)',
  exit_timeout: 'sum(event = 8)',
  exit_key: 'sum(event = 9)',
  rna: 'sum(event = 11)',
  rna_ms: 'sum(CASE WHEN event = 11 THEN a ELSE 0 END)',
  cb_req: 'sum(event = 12)',
  cb_ok: 'sum(event = 13)',
  cb_fail: 'sum(event = 14)',
};

/** The aggregates over queue_events, in STATS_COLUMNS order, each aliased by its column name. */
export const EVENT_AGGREGATES = STATS_COLUMNS.map((c) => `${EXPRESSIONS[c]} AS ${c}`).join(', ');

/** The same aggregates over rows of queue_hour_stats (sums of sums, min of mins, max of maxes). */
export const HOUR_AGGREGATES = STATS_COLUMNS.map((c) => (c === 'wait_min' ? 'min(wait_min) AS wait_min' : c === 'wait_max' ? 'max(wait_max) AS wait_max' : `sum(${c}) AS ${c}`)).join(', ');

/** Events that count in no statistic (membership) are left out of the per-hour rows. */
export const COUNTED_EVENTS = 'event < 20';

/**
 * The same sums kept in memory while a chunk is imported, then added to the per-hour rows in one upsert
 * per hour: cheaper than reading the chunk's rows back. Mirrors EXPRESSIONS exactly (a test holds the two
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

export function addEvent(v: Float64Array, event: number, a: number, b: number): void {
  if (event === 1) bump(v, COL.inbound);
  else if (event === 2) bump(v, COL.ring, a);
  else if (event === 11) {
    bump(v, COL.rna);
    bump(v, COL.rna_ms, a);
  } else if (event >= 12 && event <= 14) bump(v, event === 12 ? COL.cb_req : event === 13 ? COL.cb_ok : COL.cb_fail);
  if (event < 3 || event > 10) return;
  // events with a wait time: answered (3..6) and the exits (7..10)
  bump(v, COL.wait_sum, a);
  bump(v, COL.wait_n);
  v[COL.wait_min] = Math.min(v[COL.wait_min] as number, a);
  v[COL.wait_max] = Math.max(v[COL.wait_max] as number, a);
  if (event <= 6) {
    bump(v, COL.answered);
    bump(v, COL.talk, b);
    if (a <= 30) bump(v, COL.under30);
  } else if (event === 7) {
    bump(v, COL.abandons);
    if (a < 10) bump(v, COL.abandons_u10);
  } else if (event === 8) bump(v, COL.exit_timeout);
  else if (event === 9) bump(v, COL.exit_key);
}

/** The vector as statement parameters, in STATS_COLUMNS order (no wait: null min and max, as SQL gives). */
export function vectorParams(v: Float64Array): (number | null)[] {
  return Array.from(v, (x, i) => (i === COL.wait_min || i === COL.wait_max) && !Number.isFinite(x) ? null : x);
}

/** Adds a vector to a queue_hour_stats row (upsert). */
export const UPSERT_HOUR_STATS = `INSERT INTO queue_hour_stats (queue_id, hour, ${STATS_COLUMNS.join(', ')})
  VALUES (?, ?, ${STATS_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (queue_id, hour) DO UPDATE SET ${STATS_COLUMNS.map((c) =>
    c === 'wait_min' || c === 'wait_max'
      ? `${c} = ${c === 'wait_min' ? 'min' : 'max'}(coalesce(${c}, excluded.${c}), coalesce(excluded.${c}, ${c}))`
      : `${c} = ${c} + excluded.${c}`,
  ).join(', ')}`;
