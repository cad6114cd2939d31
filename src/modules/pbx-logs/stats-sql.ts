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
