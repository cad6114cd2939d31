import type { Caller } from '../../access/caller';
import { pageOf, pageWindow } from '../../access/paging';
import type { Db } from '../../db/database';
import { EV } from '../pbx-logs/stats.repository';
import type { SchemaTypes } from '../../validation/schema-types';
import { isoInZoneOver } from '../../time/zone';
import { lostCallsOf, type LostCallRow, type LostSpan } from './lost-calls.repository';
import { reportFrames } from './report-frame';

export type LostCallsBody = SchemaTypes['queue-lost-calls-request'];
export type LostCallsResponse = SchemaTypes['queue-lost-calls'];
export type LostCall = LostCallsResponse['records'][number];
export type LostCallsSummary = LostCallsResponse['summary'];

export interface LostCallsDeps {
  readonly db: Db;
}

const OUTCOMES: Readonly<Record<number, LostCall['outcome']>> = {
  [EV.ABANDON]: 'abandon',
  [EV.EXITWITHTIMEOUT]: 'timeout',
  [EV.EXITWITHKEY]: 'keypress',
  [EV.EXITEMPTY]: 'empty',
};
/** The range is read a day at a time: memory follows a day's calls, whatever the range, and no query holds the database long. */
const BATCH_SECONDS = 86_400;

/**
 * The lost callers of a request (reporting.md R22), oldest first, a day at a time: `batches` yields them, and
 * `summary()` is each requested queue's summary of all those yielded so far (complete once they all were).
 * The JSON route pages through them; the spreadsheet export streams them.
 */
export async function lostCalls(deps: LostCallsDeps, caller: Caller, body: LostCallsBody) {
  const frames = await reportFrames(deps.db, caller, body, 'totals');
  const short = body.shortAbandonSeconds ?? 10;
  const window = (body.recoveryWindowHours ?? 24) * 3600;
  const zoneOf = new Map<number, (t: number) => string>(); // by queue: its tenant's zone over the times the report writes
  const nameOf = new Map<number, string>();
  const spans: LostSpan[] = [];
  // enteredAt in [S, E); leftAt and a recovery later by the wait and the window (beyond: isoInZone's way, as correct)
  const isoIn = new Map(frames.map((f) => [f.tenantId, isoInZoneOver(f.tz, f.range.start, f.range.end + window + 86_400)]));
  for (const f of frames)
    for (const q of f.queues) {
      zoneOf.set(q.id, isoIn.get(f.tenantId) as (t: number) => string);
      nameOf.set(q.id, q.name);
      spans.push({ queueId: q.id, tenantId: f.tenantId, from: f.range.start, to: f.range.end });
    }
  const sums = new Map(spans.map((s) => [s.queueId, { lost: 0, short: 0, calledBack: 0, calledIn: 0, seconds: 0 }]));
  const toRecord = (r: LostCallRow): LostCall => {
    const iso = zoneOf.get(r.queueId) as (t: number) => string;
    const leftAt = r.enteredAt + r.waitTime;
    const recovery = recoveryOf(r, leftAt, iso);
    const s = sums.get(r.queueId) as { lost: number; short: number; calledBack: number; calledIn: number; seconds: number };
    const isShort = r.event === EV.ABANDON && r.waitTime < short;
    s.lost++;
    if (isShort) s.short++;
    if (recovery) {
      s.seconds += recovery.afterSeconds;
      if (recovery.how === 'calledBack') s.calledBack++;
      else s.calledIn++;
    }
    return {
      queueId: r.queueId,
      queueName: nameOf.get(r.queueId) as string,
      callId: r.callId,
      callerIdNum: r.caller ?? '',
      enteredAt: iso(r.enteredAt),
      leftAt: iso(leftAt),
      outcome: OUTCOMES[r.event] as LostCall['outcome'],
      waitTime: r.waitTime,
      position: r.position,
      originalPosition: r.origPosition,
      short: isShort,
      recovery,
    };
  };
  const from = Math.min(...spans.map((s) => s.from));
  const to = Math.max(...spans.map((s) => s.to));
  async function* batches(): AsyncGenerator<LostCall[]> {
    for (let w = from; w < to; w += BATCH_SECONDS) {
      const day = spans.flatMap((s) => {
        const span = { ...s, from: Math.max(s.from, w), to: Math.min(s.to, w + BATCH_SECONDS) };
        return span.from < span.to ? [span] : [];
      });
      const rows = await lostCallsOf(deps.db, caller.scope, day, window);
      if (rows.length > 0) yield rows.map(toRecord);
    }
  }
  const summary = (): LostCallsSummary =>
    spans.map((s) => {
      const x = sums.get(s.queueId) as { lost: number; short: number; calledBack: number; calledIn: number; seconds: number };
      const recovered = x.calledBack + x.calledIn;
      return {
        queueId: s.queueId,
        queueName: nameOf.get(s.queueId) as string,
        lost: x.lost,
        short: x.short,
        recovered,
        recoveredCalledBack: x.calledBack,
        recoveredCalledIn: x.calledIn,
        unrecovered: x.lost - recovered,
        avgRecoverySeconds: recovered > 0 ? Math.floor((2 * x.seconds + recovered) / (2 * recovered)) : null,
      };
    });
  return { batches: batches(), summary };
}

function recoveryOf(r: LostCallRow, leftAt: number, iso: (t: number) => string): LostCall['recovery'] {
  const [inAt, inQueue, ...inCall] = r.calledIn === null ? [] : r.calledIn.split('|');
  const calledInAt = inAt === undefined ? null : Number(inAt);
  if (r.backAt !== null && (calledInAt === null || r.backAt <= calledInAt))
    return {
      how: 'calledBack',
      at: iso(r.backAt),
      afterSeconds: r.backAt - leftAt,
      peerName: r.backPeer ?? '',
      extId: r.backExt,
    };
  if (calledInAt === null) return null;
  return {
    how: 'calledIn',
    at: iso(calledInAt),
    afterSeconds: calledInAt - leftAt,
    queueId: Number(inQueue),
    callId: inCall.join('|'),
  };
}

/** POST /v2/reporting/queues/lost-calls as JSON: a page of the list (decisions.md §5b) and the summary of the whole range. */
export async function lostCallsReport(deps: LostCallsDeps, caller: Caller, body: LostCallsBody): Promise<LostCallsResponse> {
  const { batches, summary } = await lostCalls(deps, caller, body);
  const { limit, offset } = pageWindow(body);
  const records: LostCall[] = [];
  let total = 0;
  for await (const batch of batches) {
    for (const record of batch) {
      if (total >= offset && (limit === null || total < offset + limit)) records.push(record);
      total++;
    }
  }
  return { ...pageOf(records, total, body), summary: summary() };
}
