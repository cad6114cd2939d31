import type { Sqlite } from '../../db/database';
import { AppError } from '../../errors';
import type { ImportStore } from './import-store';
import { ALL_TENANTS, scopeIds, type TenantScope } from '../../access/scope';
import type { CdrRecord } from './cdr-line';
import { PbxDirectory } from './directory';
import { ImportSummary } from './import-summary';
import { LineKeys } from './line-keys';
import type { ImportKind, ImportSource } from './pbx-imports.repository';
import { PbxZone } from './pbx-zone';
import type { QueueLogEvent } from './queue-log-line';

/**
 * A file none of whose first rows can be read in the layout in use (reporting.md R17): refused before
 * anything of it is stored, saying what was expected and what came.
 */
export class ImportRefused extends AppError {
  constructor(message: string) {
    super(400, message, { validationErrors: [message] });
  }
}

/** What one chunk stored (not duplicates, not skipped lines), in file order: what `onChunk` receives. */
export type StoredChunk =
  | { readonly kind: 'queue-log'; readonly items: readonly { readonly queueId: number; readonly event: QueueLogEvent }[] }
  | { readonly kind: 'cdr'; readonly items: readonly { readonly id: number; readonly tenantId: number; readonly record: CdrRecord }[] };

export interface ImportOptions {
  /** The tenants whose queues and extensions the lines may name (default: all, for the CLI). */
  readonly scope?: TenantScope;
  /**
   * Runs inside each chunk's write transaction after its rows are stored, so that anything it writes
   * (e.g. webhook events for live lines) commits or rolls back together with the lines. SQLite only for now: the
   * webhook outbox writes through SQLite's raw connection (docs/postgresql.md); on PostgreSQL an import with a hook is refused.
   */
  readonly onChunk?: (sqlite: Sqlite, chunk: StoredChunk) => void;
  /**
   * The zone of the PBX's wall-clock times (Master.csv, datetime queue_log times; reporting.md R16): an IANA
   * name the caller has checked. Default UTC; the CLI and the ingest route pass TARS_PBX_TIMEZONE's value.
   */
  readonly timezone?: string;
  /** Master.csv column names for a cdr_custom layout (`--columns`), else cdr_csv's order or the file's header. */
  readonly cdrColumns?: readonly string[];
  /** Where the lines come from, for the record of imports (GET /v2/pbx/imports); none: not recorded (tests of the importers). */
  readonly record?: ImportRecordOptions;
}

/** How an import is recorded (db/migrations/2026-11-27T1300_pbx_imports.ts). */
export interface ImportRecordOptions {
  readonly source: ImportSource;
  readonly kind: ImportKind;
  /** The file read on the server (an absolute path); none for lines sent over HTTP. */
  readonly path?: string;
  /** The import this one read again ("Import again"). */
  readonly againOf?: number;
  /** The time (ms) on the caller's clock. */
  readonly now: () => number;
}

/** Why an import that raises webhook events is refused on PostgreSQL (until the outbox runs there: issue 32, step 4). */
export const EVENTS_NOT_ON_POSTGRES =
  'Webhook events from imported lines (the ingest routes, tars import --follow or --emit-events) do not run on PostgreSQL yet: ' +
  'import without --follow and --emit-events, or run this installation on SQLite for now (docs/postgresql.md).';

/**
 * What both importers share: the directory of queues and extensions, idempotency keys, the summary, the
 * per-queue marks (newest line time, derived data to rebuild) and the chunk transaction. Every chunk is
 * one IMMEDIATE transaction, so a server writing to the same file waits at most one chunk, and a kill
 * loses at most the chunk in flight (a rerun stores it then).
 */
export class ImportRun {
  readonly summary: ImportSummary;
  readonly zone: PbxZone;
  keys = new LineKeys();
  readonly directory: PbxDirectory;
  private readonly maxTime = new Map<number, number>();
  private readonly rebuildFrom = new Map<number, number>();
  private readonly outboundFrom = new Map<number, number>();
  /** The summary's outcomes as of the last committed chunk: a chunk adds the difference to import_line_counts. */
  private counted = new Map<string, number>();
  /** The id of this import's record once written (opts.record), and when it began. */
  private recordId: number | undefined;
  private readonly startedAt: number;
  /** The tenant the import is scoped to when it is one, for its record; undefined: several or every tenant. */
  private readonly scopeTenant: number | undefined;
  private begun = false;

  constructor(
    readonly store: ImportStore,
    readonly opts: ImportOptions,
  ) {
    if (opts.onChunk && store.sqlite === undefined) throw new AppError(501, EVENTS_NOT_ON_POSTGRES);
    const scope = opts.scope ?? ALL_TENANTS;
    this.directory = new PbxDirectory(scope, store);
    const ids = scopeIds(scope);
    this.scopeTenant = ids?.length === 1 ? ids[0] : undefined;
    this.startedAt = opts.record?.now() ?? 0;
    const knownNumber = (tenantId: number, extNum: string) => this.directory.extensionByNumber(tenantId, extNum) !== undefined;
    this.summary = new ImportSummary(knownNumber, this.scopeTenant);
    this.zone = new PbxZone(opts.timezone ?? 'UTC');
    this.summary.timezone = this.zone.name;
  }

  /** Before the first chunk: the directory read, and the point from which other writers' commits are noticed. */
  private async begin(): Promise<void> {
    if (this.begun) return;
    this.begun = true;
    await this.directory.reload();
    if (this.scopeTenant === undefined && this.directory.tenants().length === 1) this.summary.soleTenant = this.directory.tenants()[0];
    await this.store.othersWrote();
  }

  /**
   * Runs one chunk in a write transaction. `invalidate` is called first when another connection has
   * committed since the last chunk: cached lookups may be stale then.
   */
  async chunk(work: () => Promise<StoredChunk>, invalidate: () => Promise<void> | void): Promise<void> {
    await this.begin();
    this.counted = await this.store.transact(async () => {
      if (await this.store.othersWrote()) {
        this.maxTime.clear();
        await this.directory.reload();
        await invalidate();
      }
      const stored = await work();
      await this.flushMarks();
      const counts = await this.countLines(stored.kind);
      if (this.opts.onChunk && this.store.sqlite) this.opts.onChunk(this.store.sqlite, stored);
      return counts;
    });
  }

  /**
   * Writes (the first time) or brings up to date the import's record with its summary so far: the importers call
   * it when they finish (a followed file: after every batch). Nothing when the import is not recorded.
   */
  async recordOutcome(): Promise<void> {
    const r = this.opts.record;
    if (!r) return;
    const summary = JSON.stringify(this.summary.toJSON());
    const now = r.now();
    if (this.recordId !== undefined) {
      await this.store.updateImportRecord(this.recordId, now, summary);
      return;
    }
    this.recordId = await this.store.recordImport({
      tenantId: this.scopeTenant ?? null,
      source: r.source,
      kind: r.kind,
      path: r.path ?? null,
      timezone: this.zone.name,
      cdrColumns: this.opts.cdrColumns ? JSON.stringify(this.opts.cdrColumns) : null,
      againOf: r.againOf ?? null,
      startedAt: this.startedAt,
      finishedAt: now,
      summary,
    });
  }

  /** The id of the import's record, once written. */
  get recorded(): number | undefined {
    return this.recordId;
  }

  /** Whether an `onChunk` hook wants the stored items (the importers collect them only then). */
  get collects(): boolean {
    return this.opts.onChunk !== undefined;
  }

  /** Another file begins (rotation, truncation): ranks of identical lines count within one file. */
  newFile(): void {
    this.keys = new LineKeys();
  }

  /** Forgets cached marks (the caller forgets its own caches): after a rebuild rewrote derived rows. */
  forgetCaches(): void {
    this.maxTime.clear();
  }

  /** Whether the newest line time of a queue is known here (else `loadNewest` first). */
  knowsNewest(queueId: number): boolean {
    return this.maxTime.has(queueId);
  }

  /** Reads the newest line time stored for a queue; a line older than that is late. */
  async loadNewest(queueId: number): Promise<void> {
    if (!this.maxTime.has(queueId)) this.maxTime.set(queueId, (await this.store.newestTime(queueId)) ?? 0);
  }

  /** A new line of a queue whose newest time is known (loadNewest). */
  sawLine(queueId: number, time: number): void {
    if (time < (this.maxTime.get(queueId) ?? 0)) markMin(this.rebuildFrom, queueId, time);
    else this.maxTime.set(queueId, time);
  }

  /** The queue's intervals are replayed from this time at the end of the import (logins of queue NONE, R15). */
  replayFrom(queueId: number, time: number): void {
    markMin(this.rebuildFrom, queueId, time);
    markMin(this.outboundFrom, queueId, time);
  }

  outboundChanged(queueId: number, time: number): void {
    markMin(this.outboundFrom, queueId, time);
  }

  private async flushMarks(): Promise<void> {
    const ids = new Set([...this.rebuildFrom.keys(), ...this.outboundFrom.keys(), ...this.maxTime.keys()]);
    for (const id of ids) {
      await this.store.mark(id, {
        maxTime: this.maxTime.get(id) ?? 0,
        rebuildFrom: this.rebuildFrom.get(id) ?? null,
        outboundFrom: this.outboundFrom.get(id) ?? null,
      });
    }
    this.rebuildFrom.clear();
    this.outboundFrom.clear();
  }

  /** Adds the lines of this chunk to import_line_counts (for /metrics); returns the outcomes counted so far. */
  private async countLines(kind: StoredChunk['kind']): Promise<Map<string, number>> {
    const now = this.summary.outcomes();
    for (const [key, n] of now) {
      const added = n - (this.counted.get(key) ?? 0);
      if (added === 0) continue;
      const [outcome = '', reason = ''] = key.split('\t');
      await this.store.addLineCount({ kind, outcome, reason, lines: added });
    }
    return now;
  }
}

function markMin(m: Map<number, number>, id: number, time: number): void {
  const cur = m.get(id);
  if (cur === undefined || time < cur) m.set(id, time);
}
