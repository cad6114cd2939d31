import type { Db } from '../../db/database';
import type { Caller } from '../../access/caller';
import type { Clock } from '../../clock';
import { resolveRange } from '../../time/report-range';
import type { SchemaTypes } from '../../validation/schema-types';
import { requireTenant, type TenantScope } from '../../access/scope';
import { getQueuesInScope } from '../queues/queues.repository';
import { timezoneOfTenant } from '../tenants/tenants.repository';
import { agentNames, edgeTalk, hourTalk, membershipTimes, nonQueueTalk, pauseTimes, type Clip } from './availability.repository';
import { codePointOrder, toAvailabilityRow, type AgentAvailabilityRow } from './queue-reports';
import { readDates } from './queue-stats.service';

/** Its `distribution` is validated, then ignored: always totals over the range (R11). */
export type AvailabilityBody = SchemaTypes['agent-availability-request'];

/** What this service uses (docs/architecture.md, "The service shape"): the clock, for a range that ends in the future. */
export interface AvailabilityDeps {
  readonly db: Db;
  readonly clock: Clock;
}

/** POST /v2/reporting/queues/agent-availability (api.md §4.3, decisions.md §6, reporting.md R10, R11). */
export async function agentAvailability(deps: AvailabilityDeps, caller: Caller, body: AvailabilityBody): Promise<AgentAvailabilityRow[]> {
  const { db } = deps;
  const now = deps.clock.now();
  const { start, end } = readDates(body);
  const [queue] = await getQueuesInScope(db, caller.scope, [body.queueId]);
  if (!queue) return [];
  const range = resolveRange(await timezoneOfTenant(db, requireTenant(caller.scope, queue.tenantId)), start, end);
  const clip: Clip = { start: range.start, end: range.end, openEnd: Math.min(range.end, Math.floor(now / 1000)) };
  const { scope } = caller;
  const members = await membershipTimes(db, scope, queue.id, clip);
  const agents = members.map((m) => m.agent);
  const [pauses, names, queueTalk, otherTalk] = await Promise.all([
    pauseTimes(db, scope, queue.id, clip),
    agentNames(db, scope, queue.id, agents),
    queueTalkTimes(db, scope, queue.id, agents, range.start, range.end),
    nonQueueTalk(db, scope, queue.id, agents, range.start, range.end),
  ]);
  return members
    .map((m) =>
      toAvailabilityRow({
        ...(names.find((n) => n.agent === m.agent) ?? { peer: '', name: '' }),
        memberTime: m.time,
        pauses: pauses.filter((p) => p.agent === m.agent),
        queueTalk: queueTalk.get(m.agent) ?? 0,
        otherTalk: otherTalk.find((t) => t.agent === m.agent)?.talk ?? 0,
      }),
    )
    .sort((a, b) => codePointOrder(a.peerName, b.peerName));
}

/** Call time of the agents' answered calls in any queue of the queue's tenant, whole hours plus the edges. */
async function queueTalkTimes(
  db: Db,
  scope: TenantScope,
  queueId: number,
  agents: number[],
  start: number,
  end: number,
): Promise<Map<number, number>> {
  const fromHour = Math.ceil(start / 3600);
  const toHour = Math.floor(end / 3600);
  const parts =
    fromHour < toHour
      ? await Promise.all([
          hourTalk(db, scope, queueId, agents, fromHour, toHour),
          edgeTalk(db, scope, queueId, agents, start, fromHour * 3600),
          edgeTalk(db, scope, queueId, agents, toHour * 3600, end),
        ])
      : [await edgeTalk(db, scope, queueId, agents, start, end)];
  const out = new Map<number, number>();
  for (const row of parts.flat()) out.set(row.agent, (out.get(row.agent) ?? 0) + row.talk);
  return out;
}
