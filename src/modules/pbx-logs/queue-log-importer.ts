import type { Sqlite } from '../../db/database';
import { AnchorCache } from './anchors';
import { EventBatch } from './event-batch';
import { HourAccumulator } from './derived-hours';
import { ImportRun, type ImportOptions, type StoredChunk } from './import-run';
import { IntervalWriter } from './intervals';
import { processPending } from './pending';
import { EV, isCallEvent, isMemberEvent, parseQueueLogLine, type QueueLogEvent } from './queue-log-line';
import type { ImportSummary } from './import-summary';

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
  /** What the rows of the batch in flight need after their insert, by their place in the batch. */
  private readonly pending = {
    events: new Array<QueueLogEvent | null>(EventBatch.SIZE).fill(null),
    queues: new Int32Array(EventBatch.SIZE),
    anchors: new Float64Array(EventBatch.SIZE),
    agents: new Int32Array(EventBatch.SIZE),
  };
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
    const items: { queueId: number; event: QueueLogEvent }[] = [];
    const collect = this.run.collects;
    const p = this.pending;
    const flush = () => {
      const n = this.batch.flush();
      for (let i = 0; i < n; i++) {
        const event = p.events[i] as QueueLogEvent;
        const queueId = p.queues[i] as number;
        if (this.afterInsert(queueId, event, p.anchors[i] as number, p.agents[i] as number, this.batch.wasStored(i)) && collect) items.push({ queueId, event });
      }
    };
    for (const line of lines) if (this.addLine(line)) flush();
    flush();
    this.seqCounter.write.run(this.seq);
    this.hours.flush(this.sqlite);
    return { kind: 'queue-log', items };
  }

  /**
   * Parses a line and adds its row to the batch (a skipped line is counted in the summary). Anchors are
   * found here, in file order. Returns true when the batch is full.
   */
  private addLine(line: string): boolean {
    const { summary, directory } = this.run;
    summary.read++;
    const event = parseQueueLogLine(line);
    if (typeof event === 'string') return summary.skip(event), false;
    const queue = directory.queueByLogName(event.queueName);
    if (!queue) return summary.skip('unknown queue'), summary.unknownQueue(event.queueName), false;
    if (event.agent !== '' && !directory.extensionByPeer(queue.tenantId, event.agent)) summary.unknownAgent(event.agent);
    if (event.code === EV.ENTERQUEUE) this.anchors.entered(queue.id, event.callid, event.time);
    const anchor = isCallEvent(event.code) ? this.anchors.anchorOf(queue.id, event.callid, event.time) : event.time;
    const agent = directory.agentId(event.agent);
    const key = this.run.keys.keyOf(line, event.time);
    const callid = isMemberEvent(event.code) ? null : event.callid;
    const i = this.batch.size;
    const p = this.pending;
    p.events[i] = event;
    p.queues[i] = queue.id;
    p.anchors[i] = anchor;
    p.agents[i] = agent;
    return this.batch.add(queue.id, anchor, event.time, key, this.seq++, event.code, callid, agent, event.a, event.b, event.reason);
  }

  /** What a new line changes besides its row: late marks, the per-hour sums, intervals. Returns `stored`. */
  private afterInsert(queueId: number, event: QueueLogEvent, anchor: number, agent: number, stored: boolean): boolean {
    const { summary } = this.run;
    if (!stored) return summary.duplicates++, false;
    summary.imported++;
    this.run.sawLine(queueId, event.time);
    this.hours.add(queueId, anchor, event.code, agent, event.a, event.b);
    if (isMemberEvent(event.code) && this.intervals.apply(queueId, agent, event.code, event.time, event.a, event.reason)) {
      this.run.outboundChanged(queueId, event.time);
    }
    return true;
  }
}
