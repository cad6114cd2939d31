import type { Sqlite } from '../../db/database';
import { AnchorCache } from './anchors';
import { EventBatch, type EventRow } from './event-batch';
import { HourAccumulator } from './derived-hours';
import { ImportRun, type ImportOptions, type StoredChunk } from './import-run';
import { IntervalWriter } from './intervals';
import { processPending } from './pending';
import { EV, isCallEvent, isMemberEvent, parseQueueLogLine, type QueueLogEvent } from './queue-log-line';
import type { ImportSummary } from './import-summary';

type Item = { queueId: number; event: QueueLogEvent; row: EventRow };

/**
 * Imports queue_log lines (reporting.md R1–R4, R10), one chunk per call of `importLines`, one write
 * transaction per chunk; `finish()` then rebuilds whatever late lines made stale.
 *
 * The hot path uses better-sqlite3 prepared statements directly rather than Kysely: a year of a busy
 * call centre is millions of lines, and a compiled statement run synchronously costs a few microseconds
 * per line where a query builder and a promise per row would cost ten times that.
 */
export class QueueLogImporter {
  private readonly run: ImportRun;
  private readonly anchors: AnchorCache;
  private readonly intervals: IntervalWriter;
  private readonly hours = new HourAccumulator();
  private readonly batch: EventBatch;
  private readonly seqCounter;
  private seq = 0;

  constructor(private readonly sqlite: Sqlite, opts: ImportOptions = {}) {
    this.run = new ImportRun(sqlite, opts);
    this.anchors = new AnchorCache(sqlite);
    this.intervals = new IntervalWriter(sqlite);
    this.batch = new EventBatch(sqlite);
    this.seqCounter = {
      read: sqlite.prepare("SELECT value FROM reporting_counters WHERE name = 'queue_log_seq'").pluck(),
      write: sqlite.prepare("INSERT INTO reporting_counters (name, value) VALUES ('queue_log_seq', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value"),
    };
  }

  get summary(): ImportSummary {
    return this.run.summary;
  }

  newFile(): void {
    this.run.newFile();
  }

  /** Stores one chunk of lines (file order) in one transaction. */
  importLines(lines: readonly string[]): void {
    this.run.chunk(() => this.store(lines), () => this.forget());
  }

  /** Rebuilds what late lines made stale (this import's and any left by an interrupted one). */
  finish(): ImportSummary {
    processPending(this.sqlite);
    this.forget(); // a rebuild rewrote intervals and anchors behind the caches
    return this.run.summary;
  }

  private forget(): void {
    this.anchors.forget();
    this.intervals.forget();
    this.run.forgetCaches();
  }

  private store(lines: readonly string[]): StoredChunk {
    this.seq = ((this.seqCounter.read.get() as number | undefined) ?? 0) + 1;
    const items: Item[] = [];
    const pending: Item[] = [];
    const flush = () => {
      this.batch.flush().forEach((stored, i) => {
        const item = pending[i] as Item;
        if (this.afterInsert(item, stored) && this.run.collects) items.push(item);
      });
      pending.length = 0;
    };
    for (const line of lines) {
      const item = this.prepareLine(line);
      if (!item) continue;
      pending.push(item);
      if (this.batch.add(item.row)) flush();
    }
    flush();
    this.seqCounter.write.run(this.seq);
    this.hours.flush(this.sqlite);
    return { kind: 'queue-log', items: items.map(({ queueId, event }) => ({ queueId, event })) };
  }

  /** Parses a line into the row to store (null: skipped, counted in the summary). Anchors are found here, in file order. */
  private prepareLine(line: string): Item | null {
    const { summary, directory } = this.run;
    summary.read++;
    const event = parseQueueLogLine(line);
    if (typeof event === 'string') return summary.skip(event), null;
    const queue = directory.queueByLogName(event.queueName);
    if (!queue) return summary.skip('unknown queue'), summary.unknownQueue(event.queueName), null;
    if (event.agent !== '' && !directory.extensionByPeer(queue.tenantId, event.agent)) summary.unknownAgent(event.agent);
    if (event.code === EV.ENTERQUEUE) this.anchors.entered(queue.id, event.callid, event.time);
    const anchor = isCallEvent(event.code) ? this.anchors.anchorOf(queue.id, event.callid, event.time) : event.time;
    const agent = directory.agentId(event.agent);
    const key = this.run.keys.keyOf(line, event.time);
    const callid = isMemberEvent(event.code) ? null : event.callid;
    const row: EventRow = [queue.id, anchor, event.time, key, this.seq++, event.code, callid, agent, event.a, event.b, event.reason];
    return { queueId: queue.id, event, row };
  }

  /** What a new line changes besides its row: late marks, the per-hour sums, intervals. Returns `stored`. */
  private afterInsert({ queueId, event, row }: Item, stored: boolean): boolean {
    const { summary } = this.run;
    if (!stored) return summary.duplicates++, false;
    summary.imported++;
    this.run.sawLine(queueId, event.time);
    const agent = row[7];
    this.hours.add(queueId, row[1], event.code, agent, event.a, event.b);
    if (isMemberEvent(event.code) && this.intervals.apply(queueId, agent, event.code, event.time, event.a, event.reason)) {
      this.run.outboundChanged(queueId, event.time);
    }
    return true;
  }
}
