import type { Db } from '../../db/database';
import type { Caller } from '../../http/caller';
import { resolveRange, type Distribution } from '../../time/report-range';
import { getQueuesInScope } from '../queues/queues.repository';
import { tenantTimezone } from '../tenants/tenants.repository';
import { agentNames, edgeTalk, hourTalk, membershipTimes, nonQueueTalk, pauseTimes, type Clip } from './availability.repository';
import type { AgentAvailabilityRow } from './queue-reports';
import { readDates } from './queue-stats.service';

export interface AvailabilityBody {
  queueId: number;
  startDate: string;
  endDate: string;
  /** Validated, then ignored: always totals over the range (R11). */
  distribution?: Distribution;
}

/** POST /v2/reporting/queues/agent-availability (api.md §4.3, decisions.md §6, reporting.md R10, R11). */
export async function agentAvailability(db: Db, caller: Caller, body: AvailabilityBody, now: number): Promise<AgentAvailabilityRow[]> {
  const { start, end } = readDates(body);
  const [queue] = await getQueuesInScope(db, caller.scope, [body.queueId]);
  if (!queue) return [];
  const range = resolveRange(await tenantTimezone(db, queue.tenantId), start, end);
  const clip: Clip = { start: range.start, end: range.end, openEnd: Math.min(range.end, Math.floor(now / 1000)) };
  const members = await membershipTimes(db, queue.id, clip);
  const agents = members.map((m) => m.agent);
  const tenantQueues = (await db.selectFrom('queues').select('id').where('tenant_id', '=', queue.tenantId).execute()).map((q) => q.id);
  const [pauses, names, queueTalk, otherTalk] = await Promise.all([
    pauseTimes(db, queue.id, clip),
    agentNames(db, queue.tenantId, agents),
    queueTalkTimes(db, tenantQueues, agents, range.start, range.end),
    nonQueueTalk(db, queue.tenantId, agents, range.start, range.end),
  ]);
  const rows = members.map((m): AgentAvailabilityRow => {
    const own = pauses.filter((p) => p.agent === m.agent && p.time > 0);
    const offDutyTimes = own
      .map((p) => ({ offDutyReason: p.reason === '' ? 'Paused' : p.reason, offDutyTime: p.time }))
      .sort((a, b) => compare(a.offDutyReason, b.offDutyReason));
    const unavailable = own.reduce((sum, p) => sum + p.time, 0);
    const name = names.find((n) => n.agent === m.agent);
    return {
      peerName: name?.peer ?? '',
      name: name?.name ?? '',
      queueTalkTime: queueTalk.get(m.agent) ?? 0,
      nonQueueTalkTime: otherTalk.find((t) => t.agent === m.agent)?.talk ?? 0,
      totalUnavailableTime: unavailable,
      totalAvailableTime: m.time - unavailable,
      offDutyTimes,
      dndTimes: own.filter((p) => p.reason === 'DND').reduce((sum, p) => sum + p.time, 0),
    };
  });
  return rows.sort((a, b) => compare(a.peerName, b.peerName));
}

/** Call time of the agents' answered calls in any queue of the tenant, whole hours plus the edges. */
async function queueTalkTimes(db: Db, queueIds: number[], agents: number[], start: number, end: number): Promise<Map<number, number>> {
  const fromHour = Math.ceil(start / 3600);
  const toHour = Math.floor(end / 3600);
  const parts =
    fromHour < toHour
      ? await Promise.all([hourTalk(db, queueIds, agents, fromHour, toHour), edgeTalk(db, queueIds, agents, start, fromHour * 3600), edgeTalk(db, queueIds, agents, toHour * 3600, end)])
      : [await edgeTalk(db, queueIds, agents, start, end)];
  const out = new Map<number, number>();
  for (const row of parts.flat()) out.set(row.agent, (out.get(row.agent) ?? 0) + row.talk);
  return out;
}

/** Code-point order (R11), not locale order: UTF-8 bytes sort the way code points do. */
function compare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
