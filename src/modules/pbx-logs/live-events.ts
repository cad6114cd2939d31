import { OPERATOR, type Caller } from '../../access/caller';
import { ALL_TENANTS } from '../../access/scope';
import type { Clock } from '../../clock';
import type { Sqlite } from '../../db/database';
import { claimCall, raiseEvent } from '../webhooks/events.service';
import { extensionOfCall, placeCall } from './cdr-importer';
import { callerNameOf, cdrRecordOfAmi } from './cdr-line';
import { PbxDirectory } from './directory';
import { announceCallEnd } from './pbx-events';
import type { PbxZone } from './pbx-zone';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** What a live call event needs: the connection its writes go through (in one transaction each), and the clock. */
export interface LiveEventDeps {
  readonly sqlite: Sqlite;
  readonly clock: Clock;
}

/**
 * The site's queues and extensions (every tenant's: the server places calls on its own behalf), kept per deps
 * object (one per AMI subscriber) and read again at most every 10 s: a burst of AMI events costs no query each.
 */
const directories = new WeakMap<LiveEventDeps, { directory: PbxDirectory; loadedAt: number }>();

function siteOf(deps: LiveEventDeps): PbxDirectory {
  const now = deps.clock.now();
  const kept = directories.get(deps);
  if (!kept) {
    const directory = PbxDirectory.ofSqlite(deps.sqlite, ALL_TENANTS);
    directories.set(deps, { directory, loadedAt: now });
    return directory;
  }
  if (now - kept.loadedAt > 10_000) {
    kept.directory.loadSqlite(deps.sqlite);
    kept.loadedAt = now;
  }
  return kept.directory;
}

/** A caller joined a queue (AMI's QueueCallerJoin): STARTCALL, unless its queue_log line announced it first. */
export function queueJoined(
  deps: LiveEventDeps,
  _caller: Caller,
  join: { readonly queueName: string; readonly callId: string; readonly callerIdNum: string; readonly occurredAt: string },
): void {
  deps.sqlite.transaction(() => {
    const queue = siteOf(deps).queueByLogName(join.queueName);
    if (!queue) return; // a queue of no tenant's
    const { callId } = join;
    if (!claimCall(deps, OPERATOR, { type: 'STARTCALL', callId, queueId: queue.id })) return;
    const data = { callId, queueId: queue.id, queueName: queue.name, callerIdNum: join.callerIdNum, source: 'ami' };
    raiseEvent(deps, OPERATOR, { tenantId: queue.tenantId, type: 'STARTCALL', occurredAt: join.occurredAt, data });
  })();
}

/**
 * A call's CDR as AMI's cdr_manager sends it when the call ends: ENDCALL with the call as the calls report shows it
 * (`id` null: it is stored only when its Master.csv line is imported), and NEWVOICEMAIL when it ended in voicemail;
 * the call is placed in its tenant as the CDR importer places a row.
 */
export function amiCallEnded(deps: LiveEventDeps, _caller: Caller, m: Readonly<Record<string, string | undefined>>, zone: PbxZone): void {
  deps.sqlite.transaction(() => {
    const r = cdrRecordOfAmi(m, zone);
    if (!r) return;
    const call = placeCall(r, siteOf(deps));
    if (typeof call === 'string') return; // no tenant's, or several tenants': the importer skips it too
    const record = {
      id: null,
      uniqueId: r.uniqueId,
      start: iso(r.start),
      answer: r.answer === null ? null : iso(r.answer),
      end: iso(r.end),
      direction: call.direction,
      source: r.src,
      destination: r.dst,
      callerName: callerNameOf(r.clid),
      extension: extensionOfCall(call),
      queueId: call.queueId,
      duration: r.duration,
      billsec: r.billsec,
      disposition: r.disposition,
    };
    announceCallEnd(deps.sqlite, call.tenantId, r, record, deps.clock.now());
  })();
}
