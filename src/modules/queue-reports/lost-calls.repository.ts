import { sql } from 'kysely';
import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Db } from '../../db/database';
import { reportSql } from '../../db/report-sql';
import { EV } from '../pbx-logs/stats.repository';
import { withSpans } from './span-table.repository';

/** A stretch of one queue's calls, by their ENTERQUEUE time (R3): [from, to). */
export interface LostSpan {
  readonly queueId: number;
  readonly tenantId: number;
  readonly from: number;
  readonly to: number;
}

/** A lost call as stored, with what recovered it (reporting.md R22). */
export interface LostCallRow {
  readonly queueId: number;
  readonly callId: string;
  readonly caller: string | null;
  readonly enteredAt: number;
  readonly event: number;
  readonly waitTime: number;
  readonly position: number | null;
  readonly origPosition: number | null;
  /** The first answered Dial call of an extension of the tenant to the number in the window: its start, agent and extension id. */
  readonly backAt: number | null;
  readonly backPeer: string | null;
  readonly backExt: number | null;
  /** The first answered later call of the number in a queue of the tenant in the window: `enteredAt|queueId|callId`. */
  readonly calledIn: string | null;
}

/** An exit the caller took to enter another queue of the tenant (a key press that chose another queue, R3): not lost. */
const MOVED_ON = 60;

/**
 * The lost calls of the spans, in the order of the report (enteredAt, then callId): each exit line (ABANDON,
 * EXITWITHTIMEOUT, EXITWITHKEY, EXITEMPTY) counted at its call's ENTERQUEUE (R3), except a key press after which
 * the same call entered a queue of the tenant within MOVED_ON seconds; with the caller's number from the
 * ENTERQUEUE and the first recovery of each kind within `window` seconds of leaving, found through the indexes
 * on the callers' match keys. Queues and CDR rows outside the scope count nothing. Meant for short spans (a day):
 * a report reads a long range a day at a time.
 */
export async function lostCallsOf(db: Db, scope: TenantScope, spans: readonly LostSpan[], window: number): Promise<LostCallRow[]> {
  if (spans.length === 0) return [];
  const enter = (column: string) =>
    sql.raw(`(SELECT e.${column} FROM queue_events e WHERE e.queue_id = x.queue_id AND e.anchor = x.anchor AND e.event = ${EV.ENTERQUEUE}
      AND e.callid = x.callid LIMIT 1)`);
  const f = reportSql(db);
  const { rows } = await sql<LostCallRow>`
    ${withSpans(
      db,
      spans.map((s, span) => ({ ...s, span })),
      ['tenantId'],
    )}
    SELECT ${f.named('m.queueId', 'queueId')}, ${f.named('m.callId', 'callId')}, m.caller, ${f.named('m.enteredAt', 'enteredAt')}, m.event, ${f.named('m.waitTime', 'waitTime')}, m.position, ${f.named('m.origPosition', 'origPosition')},
      cb.start_at AS ${f.name('backAt')}, a.peer AS ${f.name('backPeer')}, ex.id AS ${f.name('backExt')}, ${f.named('m.calledIn', 'calledIn')}
    FROM (
      SELECT l.*,
        (SELECT c.id FROM cdr_calls c${f.indexedBy('cdr_calls_callback')}
          WHERE c.tenant_id = l.tenantId AND c.destination_key = l.callerKey AND c.start_at >= l.leftAt AND c.start_at <= l.leftAt + ${window}
            AND c.destination_key IS NOT NULL AND c.last_app = 'Dial' AND c.disposition = 'ANSWERED' AND c.src_ext IS NOT NULL
          ORDER BY c.start_at, c.id LIMIT 1) AS backId,
        (SELECT e.anchor || '|' || e.queue_id || '|' || e.callid FROM queue_events e${f.indexedBy('queue_events_caller')}
          WHERE e.caller_key = l.callerKey AND e.caller_key IS NOT NULL AND e.anchor >= l.leftAt AND e.anchor <= l.leftAt + ${window}
            AND e.event = ${EV.ENTERQUEUE} AND e.queue_id IN (SELECT q.id FROM queues q WHERE q.tenant_id = l.tenantId)
            AND EXISTS (SELECT 1 FROM queue_events d WHERE d.queue_id = e.queue_id AND d.anchor = e.anchor AND d.callid = e.callid
              AND d.event BETWEEN ${EV.COMPLETEAGENT} AND ${EV.ATTENDEDTRANSFER})
          ORDER BY e.anchor, e.queue_id, e.callid LIMIT 1) AS calledIn
      FROM (
        SELECT x.queue_id AS queueId, x.callid AS callId, ${enter('caller')} AS caller, x.anchor AS enteredAt, x.event AS event,
          x.wait_time AS waitTime, x.position AS position, x.orig_position AS origPosition, x.anchor + x.wait_time AS leftAt,
          sp.tenantId AS tenantId, ${enter('caller_key')} AS callerKey
        FROM sp CROSS JOIN queue_events x
        WHERE x.queue_id = sp.queue_id AND x.anchor >= sp.lo AND x.anchor < sp.hi
          AND x.event BETWEEN ${EV.ABANDON} AND ${EV.EXITEMPTY}
          AND x.queue_id IN (SELECT q.id FROM queues q WHERE ${tenantIn(scope, 'q.tenant_id')})
          AND NOT (x.event = ${EV.EXITWITHKEY} AND EXISTS (SELECT 1 FROM queue_events n
            WHERE n.queue_id IN (SELECT q.id FROM queues q WHERE q.tenant_id = sp.tenantId)
              AND n.anchor >= x.time AND n.anchor <= x.time + ${MOVED_ON} AND n.event = ${EV.ENTERQUEUE} AND n.callid = x.callid))
      ) l
    ) m
    LEFT JOIN cdr_calls cb ON cb.id = m.backId AND ${tenantIn(scope, 'cb.tenant_id')}
    LEFT JOIN agents a ON a.id = cb.src_agent
    LEFT JOIN extensions ex ON ex.tenant_id = cb.tenant_id AND ex.ext_num = cb.src_ext
    ORDER BY m.enteredAt, m.callId, m.queueId`.execute(db);
  return rows;
}
