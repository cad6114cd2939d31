import type { Sqlite } from '../../db/database';
import { AppError } from '../../errors';
import { ALL_TENANTS, scopeIds, type TenantScope } from '../../access/scope';
import type { CdrRecord } from './cdr-line';
import { PbxDirectory } from './directory';
import { ImportSummary } from './import-summary';
import { LineKeys } from './line-keys';
import { pbxLogs, type PbxLogs } from './pbx-logs.repository';
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

  constructor(
    readonly sqlite: Sqlite,
    readonly opts: ImportOptions,
  ) {
    this.repo = pbxLogs(sqlite);
    const scope = opts.scope ?? ALL_TENANTS;
    this.directory = new PbxDirectory(sqlite, scope);
    const ids = scopeIds(scope);
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
