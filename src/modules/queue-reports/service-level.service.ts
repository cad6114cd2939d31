import type { Caller } from '../../access/caller';
import type { Db } from '../../db/database';
import type { SchemaTypes } from '../../validation/schema-types';
import { addUpRows, frameSpans, percent, reportFrames, type TenantFrame } from './report-frame';
import { levelSums, type LevelSums } from './service-level.repository';

export type ServiceLevelBody = SchemaTypes['queue-service-level-request'];
export type ServiceLevelResponse = SchemaTypes['queue-service-level'];
type LevelRow = ServiceLevelResponse['results'][number];

/** The deps of the service-level report. */
export interface ServiceLevelDeps {
  readonly db: Db;
}

/**
 * POST /v2/reporting/queues/service-level (reporting.md R19, R20): per queue and period the calls offered,
 * answered and abandoned, and at the queue's own threshold and each requested one the share answered within it
 * as Asterisk reckons it (ServicelevelPerf, ServicelevelPerf2) and as contact centres do (of the callers who
 * did not hang up at once). Rows sorted by queue id, then period; every period, empty ones included.
 */
export async function serviceLevelReport(deps: ServiceLevelDeps, caller: Caller, body: ServiceLevelBody): Promise<ServiceLevelResponse> {
  const distribution = body.distribution ?? 'totals';
  const requested = [...(body.serviceLevelThresholds ?? [])].sort((a, b) => a - b);
  const short = body.shortAbandonSeconds ?? 10;
  const results: LevelRow[] = [];
  for (const frame of await reportFrames(deps.db, caller, body, distribution))
    results.push(...(await frameRows(deps, caller, frame, requested, short)));
  results.sort((a, b) => a.queueId - b.queueId); // stable: each queue's periods stay in order
  return { queueIds: body.queueId, results };
}

async function frameRows(
  deps: ServiceLevelDeps,
  caller: Caller,
  frame: TenantFrame,
  requested: number[],
  short: number,
): Promise<LevelRow[]> {
  const own = new Map(frame.queues.map((q) => [q.id, q.serviceLevelSeconds]));
  const spans = frameSpans(frame).map((s) => ({ ...s, own: own.get(s.queueId) as number }));
  const sums: (LevelSums | undefined)[] = [];
  for (const s of await levelSums(deps.db, caller.scope, spans, requested, short)) sums[s.span] = s;
  const empty = (): LevelSums => ({
    span: -1,
    offered: 0,
    answered: 0,
    abandoned: 0,
    shortAbandons: 0,
    within: [0, ...requested].map((): [number, number] => [0, 0]), // the own threshold, then the requested ones
  });
  return addUpRows(
    frame,
    sums,
    empty,
    (into, part) => {
      into.offered += part.offered;
      into.answered += part.answered;
      into.abandoned += part.abandoned;
      into.shortAbandons += part.shortAbandons;
      part.within.forEach(([a, b], i) => {
        const w = into.within[i] as [number, number];
        w[0] += a;
        w[1] += b;
      });
    },
    (queue, row, t, index): LevelRow => {
      const levels = [queue.serviceLevelSeconds, ...requested].map((seconds, i) => ({ seconds, within: t.within[i] as [number, number] }));
      return {
        queueId: queue.id,
        queueName: queue.name,
        date: row.date,
        start: frame.starts[index] ?? null,
        distribution: frame.distribution,
        offered: t.offered,
        answered: t.answered,
        abandoned: t.abandoned,
        shortAbandons: t.shortAbandons,
        serviceLevelSeconds: queue.serviceLevelSeconds,
        levels: levels
          .filter((l, i) => i === 0 || l.seconds !== queue.serviceLevelSeconds)
          .map(({ seconds, within: [answeredWithin, abandonedWithin] }) => ({
            seconds,
            answeredWithin,
            abandonedWithin,
            serviceLevel: percent(answeredWithin, t.answered),
            serviceLevel2: percent(answeredWithin + abandonedWithin, t.answered + t.abandoned),
            serviceLevelOffered: percent(answeredWithin, t.offered - t.shortAbandons),
          })),
      };
    },
  );
}
