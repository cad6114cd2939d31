import { STATS_COLUMNS } from '../pbx-logs/stats.repository';
import type { EdgeSpan, HourSpan, OutboundSums, StatsSums } from './queue-stats.repository';

/** A stretch of time [from, to) of one queue whose sums a report needs; its index in the list is its id. */
export interface Piece {
  readonly queueId: number;
  readonly from: number;
  readonly to: number;
}

/**
 * Splits pieces into whole hours (read from the per-hour tables) and the parts of hours at their edges
 * (read from the stored rows). Local midnights are whole hours in most zones, so day, week and month
 * periods of date-only ranges need no edges at all.
 */
export function splitPieces(pieces: readonly Piece[]): { hours: HourSpan[]; edges: EdgeSpan[] } {
  const hours: HourSpan[] = [];
  const edges: EdgeSpan[] = [];
  pieces.forEach((p, span) => {
    const edge = (from: number, to: number) => {
      if (from < to) edges.push({ span, queueId: p.queueId, from, to });
    };
    const fromHour = Math.ceil(p.from / 3600);
    const toHour = Math.floor(p.to / 3600);
    if (fromHour >= toHour) return edge(p.from, p.to);
    hours.push({ span, queueId: p.queueId, fromHour, toHour });
    edge(p.from, fromHour * 3600);
    edge(toHour * 3600, p.to);
  });
  return { hours, edges };
}

export interface Sums extends StatsSums {
  outbound: number;
  outboundTalk: number;
  outboundTotal: number;
}

/** A literal, not built from STATS_COLUMNS: a year of daily rows makes thousands of these per request. */
export function emptySums(): Sums {
  return {
    inbound: 0,
    answered: 0,
    talk: 0,
    under30: 0,
    wait_sum: 0,
    wait_n: 0,
    wait_min: null,
    wait_max: null,
    ring: 0,
    abandons: 0,
    abandons_u10: 0,
    exit_timeout: 0,
    exit_key: 0,
    rna: 0,
    rna_ms: 0,
    cb_req: 0,
    cb_ok: 0,
    cb_fail: 0,
    outbound: 0,
    outboundTalk: 0,
    outboundTotal: 0,
  };
}

/** Adds one piece's partial sums (SQL gives null for min/max over no waits). */
export function addStats(into: Sums, add: StatsSums): void {
  for (const c of STATS_COLUMNS) {
    if (c === 'wait_min' || c === 'wait_max') continue;
    into[c] = (into[c] ?? 0) + (add[c] ?? 0);
  }
  into.wait_min = pick(into.wait_min, add.wait_min, Math.min);
  into.wait_max = pick(into.wait_max, add.wait_max, Math.max);
}

/** Adds the sums of one span to those of its row (the spans of an hour of the day, R20). */
export function addSums(into: Sums, add: Sums): void {
  addStats(into, add);
  into.outboundTotal += add.outboundTotal;
  into.outbound += add.outbound;
  into.outboundTalk += add.outboundTalk;
}

export function addOutbound(into: Sums, add: OutboundSums): void {
  into.outboundTotal += add.total ?? 0;
  into.outbound += add.answered ?? 0;
  into.outboundTalk += add.talk ?? 0;
}

function pick(a: number | null, b: number | null, f: (x: number, y: number) => number): number | null {
  if (a === null) return b;
  return b === null ? a : f(a, b);
}
