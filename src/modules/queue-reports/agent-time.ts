import type { ReportRow } from '../../time/report-rows';

/**
 * Time of intervals by report row (reporting.md R21): login, pause and availability intervals are cut by the
 * rows' spans, which lie in [S, E) already. An interval is [start, end) with its open end resolved (the earlier
 * of E and now, R11).
 */
export interface Interval {
  readonly start: number;
  readonly end: number;
}

/** The spans of all rows in time order (they never overlap), each with its row, for adding interval time up by row. */
export class RowSpans {
  private readonly from: number[] = [];
  private readonly to: number[] = [];
  private readonly row: number[] = [];

  constructor(rows: readonly ReportRow[]) {
    const all = rows.flatMap((r, i) => r.spans.map((s) => ({ ...s, i })));
    all.sort((a, b) => a.from - b.from);
    for (const s of all) {
      this.from.push(s.from);
      this.to.push(s.to);
      this.row.push(s.i);
    }
  }

  /** The row whose span holds the instant `t`, or -1 when none does. */
  rowAt(t: number): number {
    const k = this.firstEndingAfter(t);
    return k < this.from.length && (this.from[k] as number) <= t ? (this.row[k] as number) : -1;
  }

  /** The first span (in time order) that ends after `t`. */
  private firstEndingAfter(t: number): number {
    let lo = 0;
    let hi = this.to.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.to[mid] as number) <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds the seconds of [start, end) that fall in each row to `into[row]`. */
  add(into: Float64Array, start: number, end: number): void {
    for (let k = this.firstEndingAfter(start); k < this.from.length && (this.from[k] as number) < end; k++) {
      const seconds = Math.min(end, this.to[k] as number) - Math.max(start, this.from[k] as number);
      if (seconds > 0) into[this.row[k] as number] = (into[this.row[k] as number] as number) + seconds;
    }
  }
}

/** Sorted, merged: the time covered by any of the intervals (an agent logged in to at least one queue). */
export function union(intervals: readonly Interval[]): Interval[] {
  const sorted = [...intervals].filter((i) => i.end > i.start).sort((a, b) => a.start - b.start);
  const out: { start: number; end: number }[] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else out.push({ start: i.start, end: i.end });
  }
  return out;
}

/** The time of `base` not covered by `cut` (a queue's membership less its pauses); both any order. */
export function subtract(base: readonly Interval[], cut: readonly Interval[]): Interval[] {
  const holes = union(cut);
  const out: Interval[] = [];
  let first = 0; // the first hole that ends after the current base interval begins (both lists are in order)
  for (const b of union(base)) {
    while (first < holes.length && (holes[first] as Interval).end <= b.start) first++;
    let from = b.start;
    for (let k = first; k < holes.length && (holes[k] as Interval).start < b.end; k++) {
      const h = holes[k] as Interval;
      if (h.start > from) out.push({ start: from, end: h.start });
      from = Math.max(from, h.end);
    }
    if (from < b.end) out.push({ start: from, end: b.end });
  }
  return out;
}
