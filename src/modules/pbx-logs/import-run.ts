import type { Sqlite } from '../../db/database';
import { AppError } from '../../errors';
import { ALL_TENANTS, scopeIds, type TenantScope } from '../../access/scope';
import type { CdrRecord } from './cdr-line';
import { PbxDirectory } from './directory';
import { ImportSummary } from './import-summary';
import { LineKeys } from './line-keys';
import { pbxLogs, type PbxLogs } from './pbx-logs.repository';
import { recordImport, updateImportRecord, type ImportKind, type ImportSource } from './pbx-imports.repository';
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
   * (e.g. webhook events for live lines) commits or rolls back together with the lines.
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
  private dataVersion: number;
  private readonly maxTime = new Map<number, number>();
  private readonly rebuildFrom = new Map<number, number>();
  private readonly outboundFrom = new Map<number, number>();
  private readonly repo: PbxLogs;
  /** The summary's outcomes as of the last committed chunk: a chunk adds the difference to import_line_counts. */
  private counted = new Map<string, number>();
  /** The id of this import's record once written (opts.record), and when it began. */
  private recordId: number | undefined;
  private readonly startedAt: number;
  /** The tenant the import is scoped to when it is one, for its record; undefined: several or every tenant. */
  private readonly scopeTenant: number | undefined;

  constructor(
    readonly sqlite: Sqlite,
    readonly opts: ImportOptions,
  ) {
    this.repo = pbxLogs(sqlite);
    const scope = opts.scope ?? ALL_TENANTS;
    this.directory = new PbxDirectory(sqlite, scope);
    const ids = scopeIds(scope);
    this.scopeTenant = ids?.length === 1 ? ids[0] : undefined;
    this.startedAt = opts.record?.now() ?? 0;
    this.summary = new ImportSummary(
      (tenantId, extNum) => this.directory.extensionByNumber(tenantId, extNum) !== undefined,
      ids?.length === 1 ? ids[0] : this.directory.tenants().length === 1 ? this.directory.tenants()[0] : undefined,
    );
    this.zone = new PbxZone(opts.timezone ?? 'UTC');
    this.summary.timezone = this.zone.name;
    this.dataVersion = this.repo.dataVersion();
  }

  /**
   * Runs one chunk in a write transaction. `invalidate` is called first when another connection has
   * committed since the last chunk: cached lookups may be stale then.
   */
  chunk(work: () => StoredChunk, invalidate: () => void): void {
    const counts = this.sqlite
      .transaction(() => {
        const version = this.repo.dataVersion();
        if (version !== this.dataVersion) {
          this.dataVersion = version;
          this.maxTime.clear();
          this.directory.reload();
          invalidate();
        }
        const stored = work();
        this.flushMarks();
        const counts = this.countLines(stored.kind);
        this.opts.onChunk?.(this.sqlite, stored);
        return counts;
      })
      .immediate();
    this.counted = counts;
  }

  /**
   * Writes (the first time) or brings up to date the import's record with its summary so far: the importers call
   * it when they finish (a followed file: after every batch). Nothing when the import is not recorded.
   */
  recordOutcome(): void {
    const r = this.opts.record;
    if (!r) return;
    const summary = JSON.stringify(this.summary.toJSON());
    const now = r.now();
    if (this.recordId !== undefined) {
      updateImportRecord(this.sqlite, this.recordId, now, summary);
      return;
    }
    this.recordId = recordImport(this.sqlite, {
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

  /** The newest line time stored for a queue; a line older than that is late. */
  newest(queueId: number): number {
    let t = this.maxTime.get(queueId);
    if (t === undefined) {
      t = this.repo.newestTime.get({ queue: queueId })?.maxTime ?? 0;
      this.maxTime.set(queueId, t);
    }
    return t;
  }

  sawLine(queueId: number, time: number): void {
    if (time < this.newest(queueId)) markMin(this.rebuildFrom, queueId, time);
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

  private flushMarks(): void {
    const ids = new Set([...this.rebuildFrom.keys(), ...this.outboundFrom.keys(), ...this.maxTime.keys()]);
    for (const id of ids) {
      this.repo.mark.run({
        queue: id,
        maxTime: this.maxTime.get(id) ?? 0,
        rebuildFrom: this.rebuildFrom.get(id) ?? null,
        outboundFrom: this.outboundFrom.get(id) ?? null,
      });
    }
    this.rebuildFrom.clear();
    this.outboundFrom.clear();
  }

  /** Adds the lines of this chunk to import_line_counts (for /metrics); returns the outcomes counted so far. */
  private countLines(kind: StoredChunk['kind']): Map<string, number> {
    const now = this.summary.outcomes();
    for (const [key, n] of now) {
      const added = n - (this.counted.get(key) ?? 0);
      if (added === 0) continue;
      const [outcome = '', reason = ''] = key.split('\t');
      this.repo.addLineCount.run({ kind, outcome, reason, lines: added });
    }
    return now;
  }
}

function markMin(m: Map<number, number>, id: number, time: number): void {
  const cur = m.get(id);
  if (cur === undefined || time < cur) m.set(id, time);
}
