import type { Sqlite } from '../../db/database';
import type { Engine } from '../../db/engine';
import type { DirectoryExtension } from './agent-names';
import type { NewPbxImport } from './pbx-imports.repository';
import type { CdrCallTable } from '../../db/schema-reporting';

/*
 * The PBX log import's store (docs/design/postgresql.md §4.2; docs/architecture.md, "The PBX log import"): every
 * read and write of the importers, of the late-line rebuild and of a change of agent names, as one async
 * interface with one implementation per engine. SQLite's (pbx-logs.repository.ts, SqliteImportStore) runs the
 * prepared statements synchronously on the raw connection under it: its promises are already settled, so a chunk
 * still runs in one turn of the event loop. PostgreSQL's (pbx-logs-postgres.repository.ts, PostgresImportStore)
 * sends the same statements in PostgreSQL's SQL through Kysely, the bulk rows as multi-row INSERT … ON CONFLICT
 * DO NOTHING RETURNING, inside a READ COMMITTED transaction that holds the import lock.
 *
 * A store belongs to one import (or one rebuild): it keeps what it needs to tell whether another writer committed
 * between two of its chunks (othersWrote). Its methods run inside `transact` unless said otherwise.
 */

export interface IntervalRow {
  readonly queue: number;
  readonly agent: number;
  readonly start: number;
  readonly end: number | null;
}
export type PauseRow = IntervalRow & { readonly reason: string };
export interface HourTalkRow {
  readonly queue: number;
  readonly agent: number;
  readonly hour: number;
  readonly talk: number;
}

/** A call event as `callEventsFrom` reads it for a rebuild of anchors. */
export type StoredCallEvent = Pick<QueueEventRow, 'anchor' | 'time' | 'lineKey' | 'seq' | 'event' | 'callid'>;

/** A membership event as `memberEvents` reads it for a replay of intervals. */
export type StoredMemberEvent = Pick<QueueEventRow, 'agent' | 'event' | 'time' | 'pauseReason'>;

/** The marks of a queue's stale derived data (queue_report_state). */
export interface QueueMarks {
  readonly maxTime: number;
  readonly rebuildFrom: number | null;
  readonly outboundFrom: number | null;
}

/** A cdr_calls row to insert, by column name. */
export type CallRow = { readonly [C in Exclude<keyof CdrCallTable, 'id'>]: CdrCallTable[C] };

/** A queue_events row (one queue_log line), by name. */
export interface QueueEventRow {
  readonly queueId: number;
  /** The time the line counts at (reporting.md R3): its call's ENTERQUEUE time, else its own. */
  readonly anchor: number;
  readonly time: number;
  /** With `time`, the line's idempotency key (line-keys.ts). */
  readonly lineKey: number;
  /** Import order, which breaks ties of one second. */
  readonly seq: number;
  readonly event: number;
  /** null for membership events. */
  readonly callid: string | null;
  /** The interned agent the line's agent name resolved to (0: none), reporting.md R14. */
  readonly agent: number;
  /** The line's own agent name when it differs from `agent`, else null. */
  readonly rawAgent: number | null;
  readonly waitTime: number;
  readonly talkTime: number;
  readonly ringMs: number;
  readonly pauseReason: string | null;
  /** ENTERQUEUE: the caller's number as written, and its match key (digits.ts callerKey); else null. */
  readonly caller: string | null;
  readonly callerKey: string | null;
  /** An exit's positions when the caller left and entered (reporting.md R22); else null. */
  readonly position: number | null;
  readonly origPosition: number | null;
}

/** The queues of the directory, as the importers map log names to them. */
export interface StoredQueue {
  readonly id: number;
  readonly tenantId: number;
  readonly logName: string;
  readonly name: string;
}

/** An extension of the directory, with its tenant. */
export type StoredExtension = DirectoryExtension & { readonly tenantId: number };

/** A range of hours of a queue, [first, last] inclusive. */
export interface HourRun {
  readonly queue: number;
  readonly first: number;
  readonly last: number;
}

/** A stored name of a line or a call with the agent it resolved to (a change of agent names). */
export interface StoredAgentName {
  readonly raw: number;
  readonly agent: number;
  readonly name: string;
}

export interface ImportStore {
  readonly engine: Engine;
  /** SQLite's raw connection, for the chunk hooks that still write through it (onChunk); undefined on PostgreSQL. */
  readonly sqlite: Sqlite | undefined;
  /** queue_events rows per insertEvents call (a multi-row INSERT). */
  readonly eventsPerInsert: number;

  /**
   * Runs `work` in one write transaction, not nested: SQLite's BEGIN IMMEDIATE (the one write lock); on
   * PostgreSQL READ COMMITTED holding the import lock (pg_advisory_xact_lock), so that chunks of every importer of
   * every instance run one at a time, as SQLite's write lock makes them run.
   */
  transact<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Whether another writer committed import data since this store's previous call (false the first time): SQLite's
   * data_version; on PostgreSQL the import epoch that every import transaction advances (reporting_counters).
   */
  othersWrote(): Promise<boolean>;

  // the directory (read outside transactions too)
  queues(): Promise<StoredQueue[]>;
  extensions(): Promise<StoredExtension[]>;
  /** The interned id of an agent name, stored when new. */
  agentId(peer: string): Promise<number>;
  tenantOfQueue(queue: number): Promise<number | undefined>;
  timezoneOfQueue(queue: number): Promise<string | undefined>;

  // counters and marks
  counter(name: string): Promise<number | undefined>;
  setCounter(name: string, value: number): Promise<void>;
  addLineCount(row: { kind: string; outcome: string; reason: string; lines: number }): Promise<void>;
  newestTime(queue: number): Promise<number | undefined>;
  mark(queue: number, marks: QueueMarks): Promise<void>;
  /** The queues with stale derived data (read outside transactions). */
  markedQueues(): Promise<number[]>;
  marks(queue: number): Promise<Omit<QueueMarks, 'maxTime'> | undefined>;
  clearMarks(queue: number): Promise<void>;

  // queue_events
  /** Stores rows[0, count) (at most eventsPerInsert); stored[i] becomes whether row i was new. */
  insertEvents(rows: readonly QueueEventRow[], count: number, stored: boolean[]): Promise<void>;
  /** A line stored before its caller and positions were kept, met again: they are filled in. */
  fillDetails(row: QueueEventRow): Promise<void>;
  latestEnter(at: { queue: number; callid: string; floor: number; until: number }): Promise<{ time: number; seq: number } | undefined>;
  callEventsFrom(queue: number, from: number): Promise<StoredCallEvent[]>;
  setAnchor(r: { queue: number; anchor: number; was: number; time: number; lineKey: number }): Promise<void>;
  memberEvents(queue: number): Promise<(StoredMemberEvent & { needsLogin: boolean })[]>;
  staticAgents(queue: number): Promise<number[]>;
  eventAgents(queue: number): Promise<StoredAgentName[]>;
  reassignAgent(r: { queue: number; raw: number; agent: number; rawAgent: number | null }): Promise<void>;
  anchorHours(queue: number): Promise<{ first: number | null; last: number | null }>;

  // cdr_calls
  /** Stores a call; its id when new, null when a duplicate. */
  insertCall(row: CallRow): Promise<number | null>;
  callAgents(tenant: number): Promise<(StoredAgentName & { side: 'src' | 'dst' })[]>;
  reassignCall(
    side: 'src' | 'dst',
    r: { tenant: number; raw: number; agent: number; rawAgent: number | null; ext: number | null },
  ): Promise<void>;

  // pbx_starts (read outside transactions too)
  pbxStarts(): Promise<{ tenantId: number; time: number }[]>;
  /** Stores a start; whether it was new. */
  insertPbxStart(tenant: number, time: number): Promise<boolean>;

  // agent_sessions, agent_pauses
  lastSessionEnd(queue: number, agent: number): Promise<number | null>;
  openSession(queue: number, agent: number): Promise<number | null>;
  openPause(queue: number, agent: number): Promise<number | null>;
  /** Stores an interval; its id. */
  insertSession(row: IntervalRow): Promise<number>;
  insertPause(row: PauseRow): Promise<number>;
  closeSession(id: number, end: number): Promise<void>;
  closePause(id: number, end: number): Promise<void>;
  /** Replaces all the intervals of a queue (a replay). */
  replaceIntervals(
    queue: number,
    sessions: readonly Omit<IntervalRow, 'queue'>[],
    pauses: readonly Omit<PauseRow, 'queue'>[],
  ): Promise<void>;

  // the per-hour and per-day tables
  /** Adds sums (STATS_COLUMNS order, stats.repository.ts vectors) to an hour of a queue. */
  addHourStats(queue: number, hour: number, sums: Float64Array): Promise<void>;
  addHourTalk(row: HourTalkRow): Promise<void>;
  /** queue_hour_stats and agent_talk_hour of a run of hours recomputed from the stored rows. */
  recomputeHourRun(run: HourRun): Promise<void>;
  outboundHours(queue: number, fromHour: number): Promise<number[]>;
  /** queue_outbound_hour of a queue from an hour on recomputed from the stored calls and sessions. */
  replaceOutbound(queue: number, tenant: number, fromHour: number): Promise<void>;
  /** queue_day_stats of one local day [start, end) recomputed from the per-hour tables. */
  recomputeDay(queue: number, start: number, end: number): Promise<void>;

  // the record of imports (pbx_imports)
  recordImport(row: NewPbxImport): Promise<number>;
  updateImportRecord(id: number, finishedAt: number, summary: string): Promise<void>;
}
