import { createHash } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/database';
import { reportText } from '../../db/report-sql';
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
import { IMPORTS_KEPT, type NewPbxImport } from './pbx-imports.repository';
import { EV } from './queue-log-line';
import {
  ANSWERED_EVENTS,
  COUNTED_EVENTS,
  eventAggregates,
  HOUR_AGGREGATES,
  outboundCallsOf,
  outboundSums,
  SHOWS_MEMBERSHIP,
  STATS_COLUMNS,
  vectorParams,
} from './stats.repository';

/*
 * The import's store on PostgreSQL (import-store.ts; docs/design/postgresql.md §4.2–4.3): the statements of
 * pbx-logs.repository.ts in PostgreSQL's SQL, sent through Kysely on the chunk's transaction. What differs from
 * SQLite's text: INSERT … ON CONFLICT DO NOTHING RETURNING instead of INSERT OR IGNORE and changes() (the bulk
 * queue_events rows go EVENTS_PER_INSERT_PG to a statement, and the seq of each row stored comes back), GREATEST /
 * LEAST for SQLite's scalar max / min, ILIKE for SQLite's ASCII-caseless LIKE, the report fragments of
 * src/db/report-sql.ts (sums of conditions cast to integer), parameters in arithmetic cast to bigint, and names
 * quoted where they are camelCase or reserved ("end").
 *
 * Each transaction takes the import lock (pg_advisory_xact_lock) first, so chunks of all importers of all instances
 * run one at a time, as SQLite's one write lock makes them; and advances the import epoch (reporting_counters
 * 'import_epoch'), which tells an importer that someone else wrote between two of its chunks (othersWrote), as
 * SQLite's data_version does.
 */

/** The advisory locks TARS takes on PostgreSQL: the first key of the two-key form ('TARS'), the second the lock's. */
export const TARS_LOCK_SPACE = 0x54415253;
/** The lock every import transaction (chunk, late-line rebuild, change of agent names) holds while it runs. */
const IMPORT_CHUNKS_LOCK = 1;
const EPOCH = 'import_epoch';

/** queue_events rows per INSERT on PostgreSQL: 17 parameters a row, well under the protocol's 65,535. */
export const EVENTS_PER_INSERT_PG = 500;

const text = reportText('postgres');
const EVENT_COLUMNS = sql.raw(
  'queue_id, anchor, time, line_key, seq, event, callid, agent, raw_agent, wait_time, talk_time, ring_ms, pause_reason, caller, caller_key, position, orig_position',
);
// prettier-ignore
const CALL_COLUMNS = [
  'tenant_id', 'start_at', 'answer_at', 'end_at', 'line_key', 'unique_id', 'direction', 'outbound_r9', 'via_queue', 'source', 'destination',
  'source_digits', 'destination_digits', 'caller_name', 'src_agent', 'dst_agent', 'src_raw', 'dst_raw', 'src_ext', 'dst_ext', 'extension', 'queue_id', 'duration',
  'billsec', 'disposition', 'last_app', 'destination_key',
] as const satisfies readonly (keyof CallRow)[];

/** An integer of TARS's own (an id, an hour) as a bigint parameter: PostgreSQL would take an untyped one as int4. */
const big = (n: number): RawBuilder<number> => sql<number>`CAST(${n} AS bigint)`;
/** An integer of TARS's own written into the text (the R9 fragment takes SQL expressions): checked to be one. */
const literal = (n: number): string => {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
};

const eventValues = (r: QueueEventRow) =>
  sql`(${r.queueId}, ${r.anchor}, ${r.time}, ${r.lineKey}, ${r.seq}, ${r.event}, ${r.callid}, ${r.agent}, ${r.rawAgent}, ${r.waitTime}, ${r.talkTime}, ${r.ringMs}, ${r.pauseReason}, ${r.caller}, ${r.callerKey}, ${r.position}, ${r.origPosition})`;

const HOUR_STATS_UPSERT = sql.raw(
  STATS_COLUMNS.map((c) =>
    c === 'wait_min' || c === 'wait_max'
      ? `${c} = ${c === 'wait_min' ? 'LEAST' : 'GREATEST'}(queue_hour_stats.${c}, excluded.${c})`
      : `${c} = queue_hour_stats.${c} + excluded.${c}`,
  ).join(', '),
);

/** A 32-bit key of a text, for the second key of an advisory lock. */
export function lockKeyOf(name: string): number {
  return createHash('sha256').update(name).digest().readInt32BE(0);
}

export class PostgresImportStore implements ImportStore {
  readonly engine = 'postgres';
  readonly sqlite = undefined;
  readonly eventsPerInsert = EVENTS_PER_INSERT_PG;
  private trx: Db | undefined;
  /** The epoch after this store's last transaction (or as read first), and whether another writer advanced it before the current one. */
  private epoch: number | undefined;
  private othersBefore = false;

  constructor(private readonly db: Db) {}

  private get q(): Db {
    return this.trx ?? this.db;
  }

  private async rows<R>(query: RawBuilder<R>): Promise<R[]> {
    return (await query.execute(this.q)).rows;
  }

  private async first<R>(query: RawBuilder<R>): Promise<R | undefined> {
    return (await query.execute(this.q)).rows[0];
  }

  private async run(query: RawBuilder<unknown>): Promise<void> {
    await query.execute(this.q);
  }

  async transact<T>(work: () => Promise<T>): Promise<T> {
    if (this.trx) return work();
    return this.db
      .transaction()
      .setIsolationLevel('read committed')
      .execute(async (trx) => {
        await sql`SELECT pg_advisory_xact_lock(${TARS_LOCK_SPACE}, ${IMPORT_CHUNKS_LOCK})`.execute(trx);
        const { rows } = await sql<{ value: number }>`INSERT INTO reporting_counters (name, value) VALUES (${EPOCH}, 1)
          ON CONFLICT (name) DO UPDATE SET value = reporting_counters.value + 1 RETURNING value`.execute(trx);
        const value = Number(rows[0]?.value);
        this.othersBefore = this.epoch !== undefined && value - 1 !== this.epoch;
        this.epoch = value;
        this.trx = trx;
        try {
          return await work();
        } finally {
          this.trx = undefined;
        }
      });
  }

  async othersWrote(): Promise<boolean> {
    if (this.trx) {
      const changed = this.othersBefore;
      this.othersBefore = false;
      return changed;
    }
    this.epoch = (await this.first(sql<{ value: number }>`SELECT value FROM reporting_counters WHERE name = ${EPOCH}`))?.value ?? 0;
    return false;
  }

  async queues(): Promise<StoredQueue[]> {
    return this.rows(sql<StoredQueue>`SELECT id, tenant_id AS "tenantId", log_name AS "logName", name FROM queues ORDER BY id`);
  }
  async extensions(): Promise<StoredExtension[]> {
    return this.rows(
      sql<StoredExtension>`SELECT tenant_id AS "tenantId", ext_num AS "extNum", peer_name AS peer, ext_name AS "extName", agent_aliases AS aliases FROM extensions`,
    );
  }
  async agentId(peer: string): Promise<number> {
    // Read first: an INSERT … ON CONFLICT would use up a number of the identity each time the name is known.
    const known = await this.first(sql<{ id: number }>`SELECT id FROM agents WHERE peer = ${peer}`);
    if (known) return known.id;
    await this.run(sql`INSERT INTO agents (peer) VALUES (${peer}) ON CONFLICT (peer) DO NOTHING`);
    return (await this.first(sql<{ id: number }>`SELECT id FROM agents WHERE peer = ${peer}`))?.id as number;
  }
  async tenantOfQueue(queue: number): Promise<number | undefined> {
    return (await this.first(sql<{ tenantId: number }>`SELECT tenant_id AS "tenantId" FROM queues WHERE id = ${queue}`))?.tenantId;
  }
  async timezoneOfQueue(queue: number): Promise<string | undefined> {
    const row = await this.first(sql<{ timezone: string }>`SELECT b.timezone FROM queues q
      JOIN branches b ON b.tenant_id = q.tenant_id AND b.is_default = 1 WHERE q.id = ${queue} ORDER BY b.id LIMIT 1`);
    return row?.timezone;
  }

  async counter(name: string): Promise<number | undefined> {
    return (await this.first(sql<{ value: number }>`SELECT value FROM reporting_counters WHERE name = ${name}`))?.value;
  }
  async setCounter(name: string, value: number): Promise<void> {
    await this.run(
      sql`INSERT INTO reporting_counters (name, value) VALUES (${name}, ${value}) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
    );
  }
  async addLineCount(r: { kind: string; outcome: string; reason: string; lines: number }): Promise<void> {
    await this
      .run(sql`INSERT INTO import_line_counts (kind, outcome, reason, lines) VALUES (${r.kind}, ${r.outcome}, ${r.reason}, ${r.lines})
      ON CONFLICT (kind, outcome, reason) DO UPDATE SET lines = import_line_counts.lines + excluded.lines`);
  }
  async newestTime(queue: number): Promise<number | undefined> {
    return (await this.first(sql<{ maxTime: number }>`SELECT max_time AS "maxTime" FROM queue_report_state WHERE queue_id = ${queue}`))
      ?.maxTime;
  }
  async mark(queue: number, m: QueueMarks): Promise<void> {
    // LEAST skips NULLs: SQLite's min(coalesce(a, b), coalesce(b, a))
    await this.run(sql`INSERT INTO queue_report_state (queue_id, max_time, rebuild_from, outbound_from)
      VALUES (${queue}, ${m.maxTime}, ${m.rebuildFrom}, ${m.outboundFrom})
      ON CONFLICT (queue_id) DO UPDATE SET max_time = GREATEST(queue_report_state.max_time, excluded.max_time),
        rebuild_from = LEAST(queue_report_state.rebuild_from, excluded.rebuild_from),
        outbound_from = LEAST(queue_report_state.outbound_from, excluded.outbound_from)`);
  }
  async markedQueues(): Promise<number[]> {
    const rows = await this.rows(
      sql<{ queue: number }>`SELECT queue_id AS queue FROM queue_report_state WHERE rebuild_from IS NOT NULL OR outbound_from IS NOT NULL`,
    );
    return rows.map((r) => r.queue);
  }
  async marks(queue: number): Promise<Omit<QueueMarks, 'maxTime'> | undefined> {
    return this.first(
      sql<
        Omit<QueueMarks, 'maxTime'>
      >`SELECT rebuild_from AS "rebuildFrom", outbound_from AS "outboundFrom" FROM queue_report_state WHERE queue_id = ${queue}`,
    );
  }
  async clearMarks(queue: number): Promise<void> {
    await this.run(sql`UPDATE queue_report_state SET rebuild_from = NULL, outbound_from = NULL WHERE queue_id = ${queue}`);
  }

  /** One multi-row INSERT … ON CONFLICT DO NOTHING; the seqs it returns are the rows stored (seq is unique to this import's line). */
  async insertEvents(rows: readonly QueueEventRow[], count: number, stored: boolean[]): Promise<void> {
    const values = rows.slice(0, count).map(eventValues);
    const returned = await this.rows(sql<{ seq: number }>`INSERT INTO queue_events (${EVENT_COLUMNS}) VALUES ${sql.join(values)}
      ON CONFLICT (time, line_key) DO NOTHING RETURNING seq`);
    const seqs = new Set(returned.map((r) => Number(r.seq)));
    for (let i = 0; i < count; i++) stored[i] = seqs.has((rows[i] as QueueEventRow).seq);
  }
  async fillDetails(r: QueueEventRow): Promise<void> {
    await this
      .run(sql`UPDATE queue_events SET caller = ${r.caller}, caller_key = ${r.callerKey}, position = ${r.position}, orig_position = ${r.origPosition}
      WHERE time = ${r.time} AND line_key = ${r.lineKey} AND caller IS NULL AND position IS NULL`);
  }
  async latestEnter(at: { queue: number; callid: string; floor: number; until: number }) {
    return this.first(sql<{ time: number; seq: number }>`SELECT time, seq FROM queue_events
      WHERE queue_id = ${at.queue} AND anchor BETWEEN ${big(at.floor)} AND ${big(at.until)} AND event = ${EV.ENTERQUEUE} AND callid = ${at.callid}
      ORDER BY time DESC, seq DESC LIMIT 1`);
  }
  async callEventsFrom(queue: number, from: number): Promise<StoredCallEvent[]> {
    return this.rows(sql<StoredCallEvent>`SELECT anchor, time, line_key AS "lineKey", seq, event, callid FROM queue_events
      WHERE time >= ${big(from)} AND queue_id = ${queue} AND ${sql.raw(COUNTED_EVENTS)} ORDER BY time, seq`);
  }
  async setAnchor(r: { queue: number; anchor: number; was: number; time: number; lineKey: number }): Promise<void> {
    await this.run(sql`UPDATE queue_events SET anchor = ${r.anchor}
      WHERE queue_id = ${r.queue} AND anchor = ${big(r.was)} AND time = ${big(r.time)} AND line_key = ${big(r.lineKey)}`);
  }
  async memberEvents(queue: number): Promise<(StoredMemberEvent & { needsLogin: boolean })[]> {
    // ILIKE: SQLite's LIKE folds ASCII case (the pattern is ASCII)
    return this.rows(sql<StoredMemberEvent & { needsLogin: boolean }>`SELECT agent, event, time, pause_reason AS "pauseReason",
      EXISTS (SELECT 1 FROM agents a WHERE a.id IN (agent, raw_agent) AND a.peer ILIKE 'Agent/%') AS "needsLogin"
      FROM queue_events WHERE queue_id = ${queue} AND ${sql.raw(SHOWS_MEMBERSHIP)} ORDER BY time, seq`);
  }
  async staticAgents(queue: number): Promise<number[]> {
    const rows = await this.rows(sql<{ agent: number }>`SELECT a.id AS agent FROM queue_members m
      JOIN extensions e ON e.id = m.extension_id JOIN agents a ON a.peer = e.peer_name WHERE m.queue_id = ${queue}`);
    return rows.map((r) => r.agent);
  }
  async eventAgents(queue: number): Promise<StoredAgentName[]> {
    return this.rows(sql<StoredAgentName>`SELECT DISTINCT coalesce(e.raw_agent, e.agent) AS raw, e.agent, a.peer AS name
      FROM queue_events e JOIN agents a ON a.id = coalesce(e.raw_agent, e.agent) WHERE e.queue_id = ${queue}`);
  }
  async reassignAgent(r: { queue: number; raw: number; agent: number; rawAgent: number | null }): Promise<void> {
    await this.run(sql`UPDATE queue_events SET agent = ${r.agent}, raw_agent = ${r.rawAgent}
      WHERE queue_id = ${r.queue} AND coalesce(raw_agent, agent) = ${big(r.raw)}`);
  }
  async anchorHours(queue: number): Promise<{ first: number | null; last: number | null }> {
    const row = await this.first(
      sql<{
        first: number | null;
        last: number | null;
      }>`SELECT min(anchor) / 3600 AS first, max(anchor) / 3600 AS last FROM queue_events WHERE queue_id = ${queue}`,
    );
    return row ?? { first: null, last: null };
  }

  async insertCall(row: CallRow): Promise<number | null> {
    const values = sql.join(CALL_COLUMNS.map((c) => sql`${row[c]}`));
    const stored = await this.first(sql<{ id: number }>`INSERT INTO cdr_calls (${sql.raw(CALL_COLUMNS.join(', '))}) VALUES (${values})
      ON CONFLICT (start_at, line_key) DO NOTHING RETURNING id`);
    return stored?.id ?? null;
  }
  async callAgents(tenant: number): Promise<(StoredAgentName & { side: 'src' | 'dst' })[]> {
    return this.rows(sql<StoredAgentName & { side: 'src' | 'dst' }>`
      SELECT DISTINCT coalesce(c.src_raw, c.src_agent) AS raw, c.src_agent AS agent, a.peer AS name, 'src' AS side
        FROM cdr_calls c JOIN agents a ON a.id = coalesce(c.src_raw, c.src_agent) WHERE c.tenant_id = ${tenant}
      UNION SELECT DISTINCT coalesce(c.dst_raw, c.dst_agent), c.dst_agent, a.peer, 'dst'
        FROM cdr_calls c JOIN agents a ON a.id = coalesce(c.dst_raw, c.dst_agent) WHERE c.tenant_id = ${tenant}`);
  }
  async reassignCall(
    side: 'src' | 'dst',
    r: { tenant: number; raw: number; agent: number; rawAgent: number | null; ext: number | null },
  ): Promise<void> {
    const [agent, raw, ext] = side === 'src' ? ['src_agent', 'src_raw', 'src_ext'] : ['dst_agent', 'dst_raw', 'dst_ext'];
    await this.run(sql`UPDATE cdr_calls SET ${sql.raw(agent)} = ${r.agent}, ${sql.raw(raw)} = ${r.rawAgent}, ${sql.raw(ext)} = ${r.ext}
      WHERE tenant_id = ${r.tenant} AND coalesce(${sql.raw(raw)}, ${sql.raw(agent)}) = ${big(r.raw)}`);
  }

  async pbxStarts(): Promise<{ tenantId: number; time: number }[]> {
    return this.rows(
      sql<{ tenantId: number; time: number }>`SELECT tenant_id AS "tenantId", time FROM pbx_starts ORDER BY tenant_id, time`,
    );
  }
  async insertPbxStart(tenant: number, time: number): Promise<boolean> {
    const rows = await this.rows(
      sql`INSERT INTO pbx_starts (tenant_id, time) VALUES (${tenant}, ${time}) ON CONFLICT (tenant_id, time) DO NOTHING RETURNING 1`,
    );
    return rows.length > 0;
  }

  async lastSessionEnd(queue: number, agent: number): Promise<number | null> {
    const row = await this.first(
      sql<{ end: number | null }>`SELECT max(end_at) AS "end" FROM agent_sessions WHERE queue_id = ${queue} AND agent = ${agent}`,
    );
    return row?.end ?? null;
  }
  async openSession(queue: number, agent: number): Promise<number | null> {
    const row = await this.first(
      sql<{ id: number }>`SELECT id FROM agent_sessions WHERE queue_id = ${queue} AND agent = ${agent} AND end_at IS NULL`,
    );
    return row?.id ?? null;
  }
  async openPause(queue: number, agent: number): Promise<number | null> {
    const row = await this.first(
      sql<{ id: number }>`SELECT id FROM agent_pauses WHERE queue_id = ${queue} AND agent = ${agent} AND end_at IS NULL`,
    );
    return row?.id ?? null;
  }
  async insertSession(r: IntervalRow): Promise<number> {
    const row = await this.first(sql<{ id: number }>`INSERT INTO agent_sessions (queue_id, agent, start_at, end_at)
      VALUES (${r.queue}, ${r.agent}, ${r.start}, ${r.end}) RETURNING id`);
    return row?.id as number;
  }
  async insertPause(r: PauseRow): Promise<number> {
    const row = await this.first(sql<{ id: number }>`INSERT INTO agent_pauses (queue_id, agent, start_at, end_at, reason)
      VALUES (${r.queue}, ${r.agent}, ${r.start}, ${r.end}, ${r.reason}) RETURNING id`);
    return row?.id as number;
  }
  async closeSession(id: number, end: number): Promise<void> {
    await this.run(sql`UPDATE agent_sessions SET end_at = ${end} WHERE id = ${id}`);
  }
  async closePause(id: number, end: number): Promise<void> {
    await this.run(sql`UPDATE agent_pauses SET end_at = ${end} WHERE id = ${id}`);
  }
  async replaceIntervals(
    queue: number,
    sessions: readonly Omit<IntervalRow, 'queue'>[],
    pauses: readonly Omit<PauseRow, 'queue'>[],
  ): Promise<void> {
    await this.run(sql`DELETE FROM agent_sessions WHERE queue_id = ${queue}`);
    await this.run(sql`DELETE FROM agent_pauses WHERE queue_id = ${queue}`);
    // In order, as SQLite inserts them one by one: the ids follow the same order on both engines.
    for (let i = 0; i < sessions.length; i += 1000) {
      const values = sessions.slice(i, i + 1000).map((r) => sql`(${queue}, ${r.agent}, ${r.start}, ${r.end})`);
      await this.run(sql`INSERT INTO agent_sessions (queue_id, agent, start_at, end_at) VALUES ${sql.join(values)}`);
    }
    for (let i = 0; i < pauses.length; i += 1000) {
      const values = pauses.slice(i, i + 1000).map((r) => sql`(${queue}, ${r.agent}, ${r.start}, ${r.end}, ${r.reason})`);
      await this.run(sql`INSERT INTO agent_pauses (queue_id, agent, start_at, end_at, reason) VALUES ${sql.join(values)}`);
    }
  }

  async addHourStats(queue: number, hour: number, sums: Float64Array): Promise<void> {
    const values = sql.join(vectorParams(sums).map((v) => sql`${v}`));
    await this
      .run(sql`INSERT INTO queue_hour_stats (queue_id, hour, ${sql.raw(STATS_COLUMNS.join(', '))}) VALUES (${queue}, ${hour}, ${values})
      ON CONFLICT (queue_id, hour) DO UPDATE SET ${HOUR_STATS_UPSERT}`);
  }
  async addHourTalk(r: HourTalkRow): Promise<void> {
    await this.run(sql`INSERT INTO agent_talk_hour (queue_id, hour, agent, talk) VALUES (${r.queue}, ${r.hour}, ${r.agent}, ${r.talk})
      ON CONFLICT (queue_id, hour, agent) DO UPDATE SET talk = agent_talk_hour.talk + excluded.talk`);
  }
  async recomputeHourRun(run: HourRun): Promise<void> {
    const { queue } = run;
    const first = big(run.first);
    const last = big(run.last);
    await this.run(sql`DELETE FROM queue_hour_stats WHERE queue_id = ${queue} AND hour BETWEEN ${first} AND ${last}`);
    await this.run(sql`INSERT INTO queue_hour_stats (queue_id, hour, ${sql.raw(STATS_COLUMNS.join(', '))})
      SELECT queue_id, anchor / 3600, ${sql.raw(eventAggregates(text))} FROM queue_events
      WHERE queue_id = ${queue} AND anchor >= ${first} * 3600 AND anchor < (${last} + 1) * 3600 AND ${sql.raw(COUNTED_EVENTS)}
      GROUP BY queue_id, anchor / 3600`);
    await this.run(sql`DELETE FROM agent_talk_hour WHERE queue_id = ${queue} AND hour BETWEEN ${first} AND ${last}`);
    await this.run(sql`INSERT INTO agent_talk_hour (queue_id, hour, agent, talk)
      SELECT queue_id, anchor / 3600, agent, sum(talk_time) FROM queue_events
      WHERE queue_id = ${queue} AND anchor >= ${first} * 3600 AND anchor < (${last} + 1) * 3600 AND ${sql.raw(ANSWERED_EVENTS)} AND agent != 0
      GROUP BY queue_id, anchor / 3600, agent`);
  }
  async outboundHours(queue: number, fromHour: number): Promise<number[]> {
    const rows = await this.rows(
      sql<{ hour: number }>`SELECT hour FROM queue_outbound_hour WHERE queue_id = ${queue} AND hour >= ${big(fromHour)}`,
    );
    return rows.map((r) => r.hour);
  }
  async replaceOutbound(queue: number, tenant: number, fromHour: number): Promise<void> {
    await this.run(sql`DELETE FROM queue_outbound_hour WHERE queue_id = ${queue} AND hour >= ${big(fromHour)}`);
    const calls = outboundCallsOf({ queue: literal(queue), tenant: literal(tenant), from: `${literal(fromHour)} * 3600` }, text);
    await this.run(sql`INSERT INTO queue_outbound_hour (queue_id, hour, total, answered, talk)
      SELECT s.queue_id, c.start_at / 3600, ${sql.raw(outboundSums(text))} FROM ${sql.raw(calls)}
      GROUP BY s.queue_id, c.start_at / 3600`);
  }
  async recomputeDay(queue: number, startAt: number, endAt: number): Promise<void> {
    const start = big(startAt);
    const end = big(endAt);
    const q = big(queue);
    await this.run(
      sql`DELETE FROM queue_day_stats WHERE queue_id = ${q} AND day_start > ${start} - 172800 AND day_start < ${end} AND day_end > ${start}`,
    );
    const hours = sql`queue_id = ${q} AND hour >= ${start} / 3600 AND hour < ${end} / 3600`;
    await this
      .run(sql`INSERT INTO queue_day_stats (queue_id, day_start, day_end, ${sql.raw(STATS_COLUMNS.join(', '))}, ob_total, ob_answered, ob_talk)
      SELECT ${q}, ${start}, ${end}, ${sql.raw(HOUR_AGGREGATES)},
        (SELECT coalesce(sum(total), 0) FROM queue_outbound_hour WHERE ${hours}),
        (SELECT coalesce(sum(answered), 0) FROM queue_outbound_hour WHERE ${hours}),
        (SELECT coalesce(sum(talk), 0) FROM queue_outbound_hour WHERE ${hours})
      FROM queue_hour_stats WHERE ${hours}`);
  }

  async recordImport(r: NewPbxImport, keep = IMPORTS_KEPT): Promise<number> {
    const row = await this.first(sql<{ id: number }>`INSERT INTO pbx_imports
      (tenant_id, source, kind, path, timezone, cdr_columns, again_of, started_at, finished_at, summary)
      VALUES (${r.tenantId}, ${r.source}, ${r.kind}, ${r.path}, ${r.timezone}, ${r.cdrColumns}, ${r.againOf}, ${r.startedAt}, ${r.finishedAt}, ${r.summary})
      RETURNING id`);
    await this.run(sql`DELETE FROM pbx_imports WHERE tenant_id IS NOT DISTINCT FROM ${big(r.tenantId as number)} AND id <= (
      SELECT id FROM pbx_imports WHERE tenant_id IS NOT DISTINCT FROM ${big(r.tenantId as number)} ORDER BY id DESC LIMIT 1 OFFSET ${keep})`);
    return row?.id as number;
  }
  async updateImportRecord(id: number, finishedAt: number, summary: string): Promise<void> {
    await this.run(sql`UPDATE pbx_imports SET finished_at = ${finishedAt}, summary = ${summary} WHERE id = ${id}`);
  }
}

/** Answered by holdingImportLock when another session holds the lock. */
export const LOCK_HELD = Symbol('lock held');

/**
 * Runs `work` while this process holds the session lock named `name` (pg_try_advisory_lock on one connection kept
 * for the run, released at its end or when the session dies); LOCK_HELD at once when another session holds it:
 * an import of one file runs once, whichever instances start it (docs/postgresql.md, "Imports").
 */
export async function holdingImportLock<T>(db: Db, name: string, work: () => Promise<T>): Promise<T | typeof LOCK_HELD> {
  return db.connection().execute(async (conn) => {
    const key = lockKeyOf(name);
    const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(${TARS_LOCK_SPACE}, ${key}) AS locked`.execute(conn);
    if (rows[0]?.locked !== true) return LOCK_HELD;
    try {
      return await work();
    } finally {
      await sql`SELECT pg_advisory_unlock(${TARS_LOCK_SPACE}, ${key})`.execute(conn);
    }
  });
}
