import type { Selectable } from 'kysely';
import type { Db, Sqlite } from '../../db/database';
import type { CdrCallTable } from '../../db/schema-reporting';
import { preparedStatements, statement } from '../../db/statements';
import type {
  CallRow,
  HourRun,
  HourTalkRow,
  ImportStore,
  IntervalRow,
  PauseRow,
  QueueEventRow,
  QueueMarks,
  StoredAgentName,
  StoredCallEvent,
  StoredExtension,
  StoredMemberEvent,
  StoredQueue,
} from './import-store';
import { recordImport, updateImportRecord, type NewPbxImport } from './pbx-imports.repository';
import { EV } from './queue-log-line';
import {
  ANSWERED_EVENTS,
  COUNTED_EVENTS,
  EVENT_AGGREGATES,
  HOUR_AGGREGATES,
  outboundCallsOf,
  OUTBOUND_SUMS,
  SHOWS_MEMBERSHIP,
  STATS_COLUMNS,
  vectorParams,
} from './stats.repository';

/*
 * Every statement of the PBX-log import and of the data derived from it, prepared once per connection
 * (db/statements.ts). The import runs them synchronously on the raw connection inside its chunk
 * transactions: a year of a busy call centre is millions of lines, and a compiled statement costs a few
 * microseconds per line where a query builder and a promise per row would cost ten times that.
 * Parameters are @named, except in the statements run for most lines or membership events (the bulk
 * insert, intervals, per-hour sums): better-sqlite3 looks every named parameter up by its name at each run
 * (0.27 us a parameter, measured), so those are bound by position from a named row, in the order of their
 * column list.
 */

/** No parameters. */
type None = Record<never, never>;
type Queue = { queue: number };
type QueueAgent = { queue: number; agent: number };
type Day = { queue: number; start: number; end: number };

/** A statement whose parameters are bound by position from a named row (see above). */
const positional = (text: string) => statement<unknown[]>(text);

// prettier-ignore
const CALL_COLUMNS = [
  'tenant_id', 'start_at', 'answer_at', 'end_at', 'line_key', 'unique_id', 'direction', 'outbound_r9', 'via_queue', 'source', 'destination',
  'source_digits', 'destination_digits', 'caller_name', 'src_agent', 'dst_agent', 'src_raw', 'dst_raw', 'src_ext', 'dst_ext', 'extension', 'queue_id', 'duration',
  'billsec', 'disposition', 'last_app', 'destination_key',
] as const satisfies readonly (keyof CallRow)[];

export type { CallRow, HourTalkRow, IntervalRow, PauseRow, QueueEventRow, QueueMarks, StoredCallEvent, StoredMemberEvent };

/** queue_events columns in the order `putEventRow` writes them. */
const EVENT_COLUMNS = [
  'queue_id',
  'anchor',
  'time',
  'line_key',
  'seq',
  'event',
  'callid',
  'agent',
  'raw_agent',
  'wait_time',
  'talk_time',
  'ring_ms',
  'pause_reason',
  'caller',
  'caller_key',
  'position',
  'orig_position',
];
const INSERT_EVENTS = `INSERT OR IGNORE INTO queue_events (${EVENT_COLUMNS.join(', ')}) VALUES`;
const eventValues = (n: number) => Array.from({ length: n }, () => `(${EVENT_COLUMNS.map(() => '?').join(', ')})`).join(', ');
/** Rows per multi-row INSERT: a statement per row costs about a microsecond more per line. */
export const EVENTS_PER_INSERT = 64;

function putEventRow(args: unknown[], at: number, row: QueueEventRow): void {
  args[at] = row.queueId;
  args[at + 1] = row.anchor;
  args[at + 2] = row.time;
  args[at + 3] = row.lineKey;
  args[at + 4] = row.seq;
  args[at + 5] = row.event;
  args[at + 6] = row.callid;
  args[at + 7] = row.agent;
  args[at + 8] = row.rawAgent;
  args[at + 9] = row.waitTime;
  args[at + 10] = row.talkTime;
  args[at + 11] = row.ringMs;
  args[at + 12] = row.pauseReason;
  args[at + 13] = row.caller;
  args[at + 14] = row.callerKey;
  args[at + 15] = row.position;
  args[at + 16] = row.origPosition;
}

const statementsOf = preparedStatements({
  queues: statement<None, { id: number; tenantId: number; logName: string; name: string }>(
    'SELECT id, tenant_id AS tenantId, log_name AS logName, name FROM queues ORDER BY id',
  ),
  extensions: statement<None, { tenantId: number; extNum: number; peer: string; extName: string; aliases: string }>(
    'SELECT tenant_id AS tenantId, ext_num AS extNum, peer_name AS peer, ext_name AS extName, agent_aliases AS aliases FROM extensions',
  ),
  queueById: statement<Queue, { tenantId: number; name: string }>('SELECT tenant_id AS tenantId, name FROM queues WHERE id = @queue'),
  tenantOfQueue: statement<Queue, { tenantId: number }>('SELECT tenant_id AS tenantId FROM queues WHERE id = @queue'),
  timezoneOfQueue: statement<
    Queue,
    { timezone: string }
  >(`SELECT b.timezone FROM queues q JOIN branches b ON b.tenant_id = q.tenant_id AND b.is_default = 1
    WHERE q.id = @queue ORDER BY b.id LIMIT 1`),
  insertAgent: statement<{ peer: string }>('INSERT OR IGNORE INTO agents (peer) VALUES (@peer)'),
  agentId: statement<{ peer: string }, { id: number }>('SELECT id FROM agents WHERE peer = @peer'),
  counter: statement<{ name: string }, { value: number }>('SELECT value FROM reporting_counters WHERE name = @name'),
  setCounter: statement<{ name: string; value: number }>(
    'INSERT INTO reporting_counters (name, value) VALUES (@name, @value) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
  ),
  addLineCount: statement<{
    kind: string;
    outcome: string;
    reason: string;
    lines: number;
  }>(`INSERT INTO import_line_counts (kind, outcome, reason, lines)
    VALUES (@kind, @outcome, @reason, @lines) ON CONFLICT (kind, outcome, reason) DO UPDATE SET lines = lines + excluded.lines`),

  // queue_report_state: per queue the newest line time seen, and from when its derived data is stale
  newestTime: statement<Queue, { maxTime: number }>('SELECT max_time AS maxTime FROM queue_report_state WHERE queue_id = @queue'),
  mark: statement<Queue & QueueMarks>(`INSERT INTO queue_report_state (queue_id, max_time, rebuild_from, outbound_from)
    VALUES (@queue, @maxTime, @rebuildFrom, @outboundFrom)
    ON CONFLICT (queue_id) DO UPDATE SET max_time = max(max_time, excluded.max_time),
      rebuild_from = min(coalesce(rebuild_from, excluded.rebuild_from), coalesce(excluded.rebuild_from, rebuild_from)),
      outbound_from = min(coalesce(outbound_from, excluded.outbound_from), coalesce(excluded.outbound_from, outbound_from))`),
  markedQueues: statement<None, { queue: number }>(
    'SELECT queue_id AS queue FROM queue_report_state WHERE rebuild_from IS NOT NULL OR outbound_from IS NOT NULL',
  ),
  marks: statement<Queue, Omit<QueueMarks, 'maxTime'>>(
    'SELECT rebuild_from AS rebuildFrom, outbound_from AS outboundFrom FROM queue_report_state WHERE queue_id = @queue',
  ),
  clearMarks: statement<Queue>('UPDATE queue_report_state SET rebuild_from = NULL, outbound_from = NULL WHERE queue_id = @queue'),

  // queue_events
  latestEnter: statement<
    Queue & { callid: string; floor: number; until: number },
    { time: number; seq: number }
  >(`SELECT time, seq FROM queue_events
    WHERE queue_id = @queue AND anchor BETWEEN @floor AND @until AND event = ${EV.ENTERQUEUE} AND callid = @callid
    ORDER BY time DESC, seq DESC LIMIT 1`),
  callEventsFrom: statement<
    Queue & { from: number },
    StoredCallEvent
  >(`SELECT anchor, time, line_key AS lineKey, seq, event, callid FROM queue_events
    WHERE time >= @from AND queue_id = @queue AND ${COUNTED_EVENTS} ORDER BY time, seq`),
  setAnchor: statement<Queue & { anchor: number; was: number; time: number; lineKey: number }>(
    'UPDATE queue_events SET anchor = @anchor WHERE queue_id = @queue AND anchor = @was AND time = @time AND line_key = @lineKey',
  ),
  // needsLogin: an Agent/ member, by the name the line carried or the one it resolved to (R15)
  memberEvents: statement<Queue, StoredMemberEvent & { needsLogin: number }>(
    `SELECT agent, event, time, pause_reason AS pauseReason,
      EXISTS (SELECT 1 FROM agents a WHERE a.id IN (agent, raw_agent) AND a.peer LIKE 'Agent/%') AS needsLogin
    FROM queue_events WHERE queue_id = @queue AND ${SHOWS_MEMBERSHIP} ORDER BY time, seq`,
  ),
  staticAgents: statement<Queue, { agent: number }>(`SELECT a.id AS agent FROM queue_members m
    JOIN extensions e ON e.id = m.extension_id JOIN agents a ON a.peer = e.peer_name WHERE m.queue_id = @queue`),
  // a new resolution of agent names (identities.ts): each stored name with the agent it resolved to
  eventAgents: statement<Queue, { raw: number; agent: number; name: string }>(`SELECT DISTINCT coalesce(e.raw_agent, e.agent) AS raw,
    e.agent, a.peer AS name FROM queue_events e JOIN agents a ON a.id = coalesce(e.raw_agent, e.agent) WHERE e.queue_id = @queue`),
  reassignAgent: statement<Queue & { raw: number; agent: number; rawAgent: number | null }>(
    'UPDATE queue_events SET agent = @agent, raw_agent = @rawAgent WHERE queue_id = @queue AND coalesce(raw_agent, agent) = @raw',
  ),
  anchorHours: statement<Queue, { first: number | null; last: number | null }>(
    'SELECT min(anchor) / 3600 AS first, max(anchor) / 3600 AS last FROM queue_events WHERE queue_id = @queue',
  ),
  callAgents: statement<{ tenant: number }, { raw: number; agent: number; name: string; side: 'src' | 'dst' }>(`
    SELECT DISTINCT coalesce(c.src_raw, c.src_agent) AS raw, c.src_agent AS agent, a.peer AS name, 'src' AS side
      FROM cdr_calls c JOIN agents a ON a.id = coalesce(c.src_raw, c.src_agent) WHERE c.tenant_id = @tenant
    UNION SELECT DISTINCT coalesce(c.dst_raw, c.dst_agent), c.dst_agent, a.peer, 'dst'
      FROM cdr_calls c JOIN agents a ON a.id = coalesce(c.dst_raw, c.dst_agent) WHERE c.tenant_id = @tenant`),
  reassignSrc: statement<{ tenant: number; raw: number; agent: number; rawAgent: number | null; ext: number | null }>(
    'UPDATE cdr_calls SET src_agent = @agent, src_raw = @rawAgent, src_ext = @ext WHERE tenant_id = @tenant AND coalesce(src_raw, src_agent) = @raw',
  ),
  reassignDst: statement<{ tenant: number; raw: number; agent: number; rawAgent: number | null; ext: number | null }>(
    'UPDATE cdr_calls SET dst_agent = @agent, dst_raw = @rawAgent, dst_ext = @ext WHERE tenant_id = @tenant AND coalesce(dst_raw, dst_agent) = @raw',
  ),
  // a line stored before its caller and positions were kept (migration 2026-11-26T1310), met again: they are filled in
  fillDetails: positional(`UPDATE queue_events SET caller = ?, caller_key = ?, position = ?, orig_position = ?
    WHERE time = ? AND line_key = ? AND caller IS NULL AND position IS NULL`),
  storedSeq: statement<{ time: number; lineKey: number }, { seq: number }>(
    'SELECT seq FROM queue_events WHERE time = @time AND line_key = @lineKey',
  ),

  // pbx_starts (R15)
  pbxStarts: statement<None, { tenantId: number; time: number }>(
    'SELECT tenant_id AS tenantId, time FROM pbx_starts ORDER BY tenant_id, time',
  ),
  insertPbxStart: statement<{ tenant: number; time: number }>('INSERT OR IGNORE INTO pbx_starts (tenant_id, time) VALUES (@tenant, @time)'),
  lastSessionEnd: statement<QueueAgent, { end: number | null }>(
    'SELECT max(end_at) AS end FROM agent_sessions WHERE queue_id = @queue AND agent = @agent',
  ),

  // agent_sessions, agent_pauses
  openSession: statement<QueueAgent, { id: number }>(
    'SELECT id FROM agent_sessions WHERE queue_id = @queue AND agent = @agent AND end_at IS NULL',
  ),
  openPause: statement<QueueAgent, { id: number }>(
    'SELECT id FROM agent_pauses WHERE queue_id = @queue AND agent = @agent AND end_at IS NULL',
  ),
  insertSession: positional('INSERT INTO agent_sessions (queue_id, agent, start_at, end_at) VALUES (?, ?, ?, ?)'),
  insertPause: positional('INSERT INTO agent_pauses (queue_id, agent, start_at, end_at, reason) VALUES (?, ?, ?, ?, ?)'),
  closeSession: positional('UPDATE agent_sessions SET end_at = ? WHERE id = ?'),
  closePause: positional('UPDATE agent_pauses SET end_at = ? WHERE id = ?'),
  deleteSessions: statement<Queue>('DELETE FROM agent_sessions WHERE queue_id = @queue'),
  deletePauses: statement<Queue>('DELETE FROM agent_pauses WHERE queue_id = @queue'),

  // the per-hour tables: hours [first, last] recomputed from the stored rows, or a chunk's sums added
  deleteHourStats: statement<HourRun>('DELETE FROM queue_hour_stats WHERE queue_id = @queue AND hour BETWEEN @first AND @last'),
  insertHourStats: statement<HourRun>(`INSERT INTO queue_hour_stats (queue_id, hour, ${STATS_COLUMNS.join(', ')})
    SELECT queue_id, anchor / 3600, ${EVENT_AGGREGATES} FROM queue_events
    WHERE queue_id = @queue AND anchor >= @first * 3600 AND anchor < (@last + 1) * 3600 AND ${COUNTED_EVENTS} GROUP BY anchor / 3600`),
  addHourStats: positional(`INSERT INTO queue_hour_stats (queue_id, hour, ${STATS_COLUMNS.join(', ')})
    VALUES (?, ?, ${STATS_COLUMNS.map(() => '?').join(', ')})
    ON CONFLICT (queue_id, hour) DO UPDATE SET ${STATS_COLUMNS.map((c) =>
      c === 'wait_min' || c === 'wait_max'
        ? `${c} = ${c === 'wait_min' ? 'min' : 'max'}(coalesce(${c}, excluded.${c}), coalesce(excluded.${c}, ${c}))`
        : `${c} = ${c} + excluded.${c}`,
    ).join(', ')}`),
  deleteHourTalk: statement<HourRun>('DELETE FROM agent_talk_hour WHERE queue_id = @queue AND hour BETWEEN @first AND @last'),
  insertHourTalk: statement<HourRun>(`INSERT INTO agent_talk_hour (queue_id, hour, agent, talk)
    SELECT queue_id, anchor / 3600, agent, sum(talk_time) FROM queue_events
    WHERE queue_id = @queue AND anchor >= @first * 3600 AND anchor < (@last + 1) * 3600 AND ${ANSWERED_EVENTS} AND agent != 0
    GROUP BY anchor / 3600, agent`),
  addHourTalk: positional(`INSERT INTO agent_talk_hour (queue_id, hour, agent, talk) VALUES (?, ?, ?, ?)
    ON CONFLICT (queue_id, hour, agent) DO UPDATE SET talk = talk + excluded.talk`),
  outboundHours: statement<Queue & { fromHour: number }, { hour: number }>(
    'SELECT hour FROM queue_outbound_hour WHERE queue_id = @queue AND hour >= @fromHour',
  ),
  deleteOutbound: statement<Queue & { fromHour: number }>('DELETE FROM queue_outbound_hour WHERE queue_id = @queue AND hour >= @fromHour'),
  insertOutbound: statement<
    Queue & { tenant: number; fromHour: number }
  >(`INSERT INTO queue_outbound_hour (queue_id, hour, total, answered, talk)
    SELECT s.queue_id, c.start_at / 3600, ${OUTBOUND_SUMS} FROM ${outboundCallsOf({ queue: '@queue', tenant: '@tenant', from: '@fromHour * 3600' })}
    GROUP BY c.start_at / 3600`),

  // queue_day_stats: whole local days of the per-hour tables; rows of another timezone overlapping the day would go stale: they go
  deleteDays: statement<Day>(
    'DELETE FROM queue_day_stats WHERE queue_id = @queue AND day_start > @start - 172800 AND day_start < @end AND day_end > @start',
  ),
  insertDay:
    statement<Day>(`INSERT INTO queue_day_stats (queue_id, day_start, day_end, ${STATS_COLUMNS.join(', ')}, ob_total, ob_answered, ob_talk)
    SELECT @queue, @start, @end, ${HOUR_AGGREGATES},
      (SELECT coalesce(sum(total), 0) FROM queue_outbound_hour WHERE queue_id = @queue AND hour >= @start / 3600 AND hour < @end / 3600),
      (SELECT coalesce(sum(answered), 0) FROM queue_outbound_hour WHERE queue_id = @queue AND hour >= @start / 3600 AND hour < @end / 3600),
      (SELECT coalesce(sum(talk), 0) FROM queue_outbound_hour WHERE queue_id = @queue AND hour >= @start / 3600 AND hour < @end / 3600)
    FROM queue_hour_stats WHERE queue_id = @queue AND hour >= @start / 3600 AND hour < @end / 3600`),

  // cdr_calls (one row per record: named)
  insertCall: statement<CallRow>(
    `INSERT OR IGNORE INTO cdr_calls (${CALL_COLUMNS.join(', ')}) VALUES (${CALL_COLUMNS.map((c) => `@${c}`).join(', ')})`,
  ),
  callById: statement<{ id: number }, Selectable<CdrCallTable>>('SELECT * FROM cdr_calls WHERE id = @id'),

  // the bulk insert of queue_events rows, EVENTS_PER_INSERT at a time or one by one (see EventInserter)
  insertEvents: positional(`${INSERT_EVENTS} ${eventValues(EVENTS_PER_INSERT)}`),
  insertEvent: positional(`${INSERT_EVENTS} ${eventValues(1)}`),
});

export type PbxLogs = ReturnType<typeof pbxLogs>;

/** The repository of one connection: its statements (the chunk hooks of pbx-events.ts read through it). */
export function pbxLogs(sqlite: Sqlite) {
  return statementsOf(sqlite);
}

/**
 * The import's store on SQLite (import-store.ts): the prepared statements above, run synchronously on the raw
 * connection under an async interface whose promises are settled when returned, so that a chunk still runs in
 * one turn of the event loop, as it did when the importer called the statements itself.
 */
export class SqliteImportStore implements ImportStore {
  readonly engine = 'sqlite';
  readonly eventsPerInsert = EVENTS_PER_INSERT;
  private readonly s: ReturnType<typeof statementsOf>;
  private readonly args: unknown[] = new Array(EVENTS_PER_INSERT * EVENT_COLUMNS.length).fill(null);
  private version: number | undefined;

  constructor(readonly sqlite: Sqlite) {
    this.s = statementsOf(sqlite);
  }

  async transact<T>(work: () => Promise<T>): Promise<T> {
    if (this.sqlite.inTransaction) return work();
    this.sqlite.exec('BEGIN IMMEDIATE');
    try {
      const result = await work();
      this.sqlite.exec('COMMIT');
      return result;
    } catch (err) {
      if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
      throw err;
    }
  }

  async othersWrote(): Promise<boolean> {
    // Changes when another connection commits (https://sqlite.org/pragma.html#pragma_data_version).
    const version = this.sqlite.pragma('data_version', { simple: true }) as number;
    const changed = this.version !== undefined && version !== this.version;
    this.version = version;
    return changed;
  }

  async queues(): Promise<StoredQueue[]> {
    return this.s.queues.all();
  }
  async extensions(): Promise<StoredExtension[]> {
    return this.s.extensions.all();
  }
  async agentId(peer: string): Promise<number> {
    this.s.insertAgent.run({ peer });
    return this.s.agentId.get({ peer })?.id as number;
  }
  async tenantOfQueue(queue: number): Promise<number | undefined> {
    return this.s.tenantOfQueue.get({ queue })?.tenantId;
  }
  async timezoneOfQueue(queue: number): Promise<string | undefined> {
    return this.s.timezoneOfQueue.get({ queue })?.timezone;
  }

  async counter(name: string): Promise<number | undefined> {
    return this.s.counter.get({ name })?.value;
  }
  async setCounter(name: string, value: number): Promise<void> {
    this.s.setCounter.run({ name, value });
  }
  async addLineCount(row: { kind: string; outcome: string; reason: string; lines: number }): Promise<void> {
    this.s.addLineCount.run(row);
  }
  async newestTime(queue: number): Promise<number | undefined> {
    return this.s.newestTime.get({ queue })?.maxTime;
  }
  async mark(queue: number, marks: QueueMarks): Promise<void> {
    this.s.mark.run({ queue, ...marks });
  }
  async markedQueues(): Promise<number[]> {
    return this.s.markedQueues.all().map((r) => r.queue);
  }
  async marks(queue: number): Promise<Omit<QueueMarks, 'maxTime'> | undefined> {
    return this.s.marks.get({ queue });
  }
  async clearMarks(queue: number): Promise<void> {
    this.s.clearMarks.run({ queue });
  }

  /**
   * EVENTS_PER_INSERT rows per multi-row INSERT OR IGNORE; when a group stored fewer rows than it had, each row's
   * seq tells whether it is the one stored (seq is unique to this import's line).
   */
  async insertEvents(rows: readonly QueueEventRow[], count: number, stored: boolean[]): Promise<void> {
    const s = this.s;
    if (count === EVENTS_PER_INSERT) {
      for (let i = 0; i < count; i++) putEventRow(this.args, i * EVENT_COLUMNS.length, rows[i] as QueueEventRow);
      const all = s.insertEvents.run(this.args).changes === count;
      for (let i = 0; i < count; i++) {
        const row = rows[i] as QueueEventRow;
        stored[i] = all || s.storedSeq.get({ time: row.time, lineKey: row.lineKey })?.seq === row.seq;
      }
      return;
    }
    const args = new Array<unknown>(EVENT_COLUMNS.length);
    for (let i = 0; i < count; i++) {
      putEventRow(args, 0, rows[i] as QueueEventRow);
      stored[i] = s.insertEvent.run(args).changes > 0;
    }
  }
  async fillDetails(r: QueueEventRow): Promise<void> {
    this.s.fillDetails.run([r.caller, r.callerKey, r.position, r.origPosition, r.time, r.lineKey]);
  }
  async latestEnter(at: { queue: number; callid: string; floor: number; until: number }) {
    return this.s.latestEnter.get(at);
  }
  async callEventsFrom(queue: number, from: number): Promise<StoredCallEvent[]> {
    return this.s.callEventsFrom.all({ queue, from });
  }
  async setAnchor(r: { queue: number; anchor: number; was: number; time: number; lineKey: number }): Promise<void> {
    this.s.setAnchor.run(r);
  }
  async memberEvents(queue: number): Promise<(StoredMemberEvent & { needsLogin: boolean })[]> {
    return this.s.memberEvents.all({ queue }).map((e) => ({ ...e, needsLogin: e.needsLogin === 1 }));
  }
  async staticAgents(queue: number): Promise<number[]> {
    return this.s.staticAgents.all({ queue }).map((r) => r.agent);
  }
  async eventAgents(queue: number): Promise<StoredAgentName[]> {
    return this.s.eventAgents.all({ queue });
  }
  async reassignAgent(r: { queue: number; raw: number; agent: number; rawAgent: number | null }): Promise<void> {
    this.s.reassignAgent.run(r);
  }
  async anchorHours(queue: number): Promise<{ first: number | null; last: number | null }> {
    return this.s.anchorHours.get({ queue }) ?? { first: null, last: null };
  }

  async insertCall(row: CallRow): Promise<number | null> {
    const result = this.s.insertCall.run(row);
    return result.changes === 0 ? null : Number(result.lastInsertRowid);
  }
  async callAgents(tenant: number): Promise<(StoredAgentName & { side: 'src' | 'dst' })[]> {
    return this.s.callAgents.all({ tenant });
  }
  async reassignCall(
    side: 'src' | 'dst',
    r: { tenant: number; raw: number; agent: number; rawAgent: number | null; ext: number | null },
  ): Promise<void> {
    (side === 'src' ? this.s.reassignSrc : this.s.reassignDst).run(r);
  }

  async pbxStarts(): Promise<{ tenantId: number; time: number }[]> {
    return this.s.pbxStarts.all();
  }
  async insertPbxStart(tenant: number, time: number): Promise<boolean> {
    return this.s.insertPbxStart.run({ tenant, time }).changes > 0;
  }

  async lastSessionEnd(queue: number, agent: number): Promise<number | null> {
    return this.s.lastSessionEnd.get({ queue, agent })?.end ?? null;
  }
  async openSession(queue: number, agent: number): Promise<number | null> {
    return this.s.openSession.get({ queue, agent })?.id ?? null;
  }
  async openPause(queue: number, agent: number): Promise<number | null> {
    return this.s.openPause.get({ queue, agent })?.id ?? null;
  }
  async insertSession(r: IntervalRow): Promise<number> {
    return Number(this.s.insertSession.run([r.queue, r.agent, r.start, r.end]).lastInsertRowid);
  }
  async insertPause(r: PauseRow): Promise<number> {
    return Number(this.s.insertPause.run([r.queue, r.agent, r.start, r.end, r.reason]).lastInsertRowid);
  }
  async closeSession(id: number, end: number): Promise<void> {
    this.s.closeSession.run([end, id]);
  }
  async closePause(id: number, end: number): Promise<void> {
    this.s.closePause.run([end, id]);
  }
  async replaceIntervals(
    queue: number,
    sessions: readonly Omit<IntervalRow, 'queue'>[],
    pauses: readonly Omit<PauseRow, 'queue'>[],
  ): Promise<void> {
    this.s.deleteSessions.run({ queue });
    this.s.deletePauses.run({ queue });
    for (const r of sessions) this.s.insertSession.run([queue, r.agent, r.start, r.end]);
    for (const r of pauses) this.s.insertPause.run([queue, r.agent, r.start, r.end, r.reason]);
  }

  async addHourStats(queue: number, hour: number, sums: Float64Array): Promise<void> {
    this.s.addHourStats.run([queue, hour, ...vectorParams(sums)]);
  }
  async addHourTalk(r: HourTalkRow): Promise<void> {
    this.s.addHourTalk.run([r.queue, r.hour, r.agent, r.talk]);
  }
  async recomputeHourRun(run: HourRun): Promise<void> {
    this.s.deleteHourStats.run(run);
    this.s.insertHourStats.run(run);
    this.s.deleteHourTalk.run(run);
    this.s.insertHourTalk.run(run);
  }
  async outboundHours(queue: number, fromHour: number): Promise<number[]> {
    return this.s.outboundHours.all({ queue, fromHour }).map((r) => r.hour);
  }
  async replaceOutbound(queue: number, tenant: number, fromHour: number): Promise<void> {
    this.s.deleteOutbound.run({ queue, fromHour });
    this.s.insertOutbound.run({ queue, tenant, fromHour });
  }
  async recomputeDay(queue: number, start: number, end: number): Promise<void> {
    const params = { queue, start, end };
    this.s.deleteDays.run(params);
    this.s.insertDay.run(params);
  }

  async recordImport(row: NewPbxImport): Promise<number> {
    return recordImport(this.sqlite, row);
  }
  async updateImportRecord(id: number, finishedAt: number, summary: string): Promise<void> {
    updateImportRecord(this.sqlite, id, finishedAt, summary);
  }
}

/** The lines of every import so far, by log kind, outcome and skip reason (the metrics' gauge). */
export async function importLineCounts(db: Db): Promise<{ kind: string; outcome: string; reason: string; lines: number }[]> {
  return db.selectFrom('import_line_counts').select(['kind', 'outcome', 'reason', 'lines']).execute();
}

/**
 * Every queue and extension of the site, as the directory (directory.ts) maps log names to them: its rows read
 * through Kysely, on either engine (the live call events; the importer reads the same with `queues`/`extensions`).
 */
export async function directoryRows(db: Db): Promise<{
  queues: { id: number; tenantId: number; logName: string; name: string }[];
  extensions: { tenantId: number; extNum: number; peer: string; extName: string; aliases: string }[];
}> {
  const queues = await db
    .selectFrom('queues')
    .select(['id', 'tenant_id as tenantId', 'log_name as logName', 'name'])
    .orderBy('id')
    .execute();
  const extensions = await db
    .selectFrom('extensions')
    .select(['tenant_id as tenantId', 'ext_num as extNum', 'peer_name as peer', 'ext_name as extName', 'agent_aliases as aliases'])
    .orderBy('id')
    .execute();
  return { queues, extensions };
}
