import type { Sqlite } from '../../db/database';
import { AnchorCache } from './anchors';
import { callerKey } from './digits';
import { rawOrNull, type QueueRef } from './directory';
import { HourAccumulator } from './derived-hours';
import { ImportRefused, ImportRun, type ImportOptions, type StoredChunk } from './import-run';
import type { ImportSummary } from './import-summary';
import { IntervalWriter } from './intervals';
import { EVENTS_PER_INSERT, pbxLogs, type PbxLogs, type QueueEventRow } from './pbx-logs.repository';
import { processPending } from './pending';
import { PbxStarts } from './pbx-starts';
import { detectLayout, toNative, type QueueLogLayout } from './queue-log-layout';
import {
  EV,
  isCallEvent,
  isMemberEvent,
  isPbxStart,
  parseQueueLogLine,
  QUEUE_LOG_SKIPS,
  showsMembership,
  type QueueLogEvent,
} from './queue-log-line';
import { samePbxName } from '../../pbx-name';

const HEADER_ROW = 'header row';

const SEQ_COUNTER = 'queue_log_seq';

/**
 * Imports queue_log lines (reporting.md R1–R4, R10), one chunk per call of `importLines`, one write
 * transaction per chunk; `finish()` then rebuilds whatever late lines made stale. Rows are inserted
 * EVENTS_PER_INSERT at a time; what each line changes besides its row follows once its insert tells
 * whether it was new.
 */
export class QueueLogImporter {
  private readonly run: ImportRun;
  private readonly repo: PbxLogs;
  private readonly anchors: AnchorCache;
  private readonly intervals: IntervalWriter;
  private readonly starts: PbxStarts;
  private readonly hours = new HourAccumulator();
  /**
   * The batch in flight: its rows, the events they were read from, whether a row's intervals need a replay
   * rather than a step (R15 logins), and after the insert which were new.
   */
  private readonly batch = {
    rows: [] as QueueEventRow[],
    events: [] as QueueLogEvent[],
    replay: [] as boolean[],
    /** Whether the row counts as a line in the summary (a login of queue NONE is one line stored in several queues). */
    counts: [] as boolean[],
    stored: [] as boolean[],
    size: 0,
  };
  /** What the chunk stored, for an onChunk hook. */
  private items: { queueId: number; event: QueueLogEvent }[] = [];
  private seq = 0;
  /** Of the current file: its layout once its first line decided it (R17), and what its first chunk showed. */
  private file = { decided: false, layout: null as QueueLogLayout | null, checked: false, firstLine: '', lines: 0, records: 0 };

  constructor(
    private readonly sqlite: Sqlite,
    opts: ImportOptions = {},
  ) {
    this.run = new ImportRun(sqlite, opts);
    this.repo = pbxLogs(sqlite);
    this.anchors = new AnchorCache(sqlite);
    this.starts = new PbxStarts(sqlite);
    this.intervals = new IntervalWriter(sqlite, this.starts);
  }

  get summary(): ImportSummary {
    return this.run.summary;
  }

  newFile(): void {
    this.run.newFile();
    this.file = { decided: false, layout: null, checked: false, firstLine: '', lines: 0, records: 0 };
  }

  /** Stores one chunk of lines (file order) in one transaction. */
  importLines(lines: readonly string[]): void {
    this.run.chunk(
      () => this.store(lines),
      () => this.forget(),
    );
  }

  /** After the first chunk with lines: refuses the file when not one of them was a queue_log record (R17). */
  private checkLayout(): void {
    const f = this.file;
    if (f.checked || f.lines === 0) return;
    f.checked = true;
    if (f.records > 0) return;
    const shown = JSON.stringify(f.firstLine.length > 200 ? `${f.firstLine.slice(0, 200)}…` : f.firstLine);
    throw new ImportRefused(
      'No line of this file can be read as a queue_log: expected time|callid|queuename|agent|event|data… (time in epoch seconds ' +
        'or YYYY-MM-DD HH:MM:SS), or a realtime export of those columns separated by tabs or commas, with or without a header row ' +
        `naming them; the first line held ${shown}. Nothing was imported.`,
    );
  }

  /** Rebuilds what late lines made stale (this import's and any left by an interrupted one). */
  /** The id of this import's record (ImportOptions.record), once it finished. */
  get recordId(): number | undefined {
    return this.run.recorded;
  }

  finish(): ImportSummary {
    processPending(this.sqlite);
    this.forget(); // a rebuild rewrote intervals and anchors behind the caches
    this.run.recordOutcome();
    return this.run.summary;
  }

  private forget(): void {
    this.anchors.forget();
    this.intervals.forget();
    this.starts.reload();
    this.run.forgetCaches();
  }

  private store(lines: readonly string[]): StoredChunk {
    this.seq = (this.repo.counter.get({ name: SEQ_COUNTER })?.value ?? 0) + 1;
    const items: { queueId: number; event: QueueLogEvent }[] = [];
    this.items = items;
    for (const line of lines) this.addLine(line);
    this.flush();
    this.checkLayout();
    this.repo.setCounter.run({ name: SEQ_COUNTER, value: this.seq });
    this.hours.flush(this.sqlite);
    return { kind: 'queue-log', items };
  }

  /**
   * Parses a line and adds its row to the batch (a skipped line is counted in the summary). Anchors are
   * found here, in file order.
   */
  private addLine(line: string): void {
    const { summary, directory } = this.run;
    summary.read++;
    const f = this.file;
    if (!f.decided && line.trim() !== '') {
      const { layout, header } = detectLayout(line);
      f.decided = true;
      f.layout = layout;
      if (header) {
        summary.skip(HEADER_ROW);
        return;
      }
    }
    const event = parseQueueLogLine(f.layout ? toNative(line, f.layout) : line, this.run.zone);
    if (event !== QUEUE_LOG_SKIPS.blank && f.lines++ === 0) f.firstLine = line;
    if (typeof event === 'string') {
      if (event !== QUEUE_LOG_SKIPS.notRecord && event !== QUEUE_LOG_SKIPS.blank) f.records++;
      summary.skip(event);
      return;
    }
    f.records++;
    if (event.wallClock) summary.wallTimes = true;
    if (isPbxStart(event.code)) {
      this.pbxStarted(event.time);
      return;
    }
    const queue = directory.queueByLogName(event.queueName);
    if (!queue) {
      if (!this.loginEverywhere(event, line)) {
        summary.skip('unknown queue');
        summary.unknownQueue(event.queueName);
      }
      return;
    }
    if (event.agent !== '' && directory.agentIds(queue.tenantId, event.agent).peer === undefined)
      summary.unknownAgent(event.agent, queue.tenantId, queue.id);
    this.enqueue(queue, event, event.code, this.run.keys.keyOf(line, event.time), true);
  }

  /**
   * AGENTLOGIN / AGENTLOGOFF of queue NONE (R15): stored in every queue of the agent's tenant (the tenant
   * where its name resolves, else the import's only tenant), where a replay of the queue's lines decides whether
   * it is a member there. Returns false when the line is not one, or names no tenant.
   */
  private loginEverywhere(event: QueueLogEvent, line: string): boolean {
    const { directory, summary } = this.run;
    if ((event.code !== EV.AGENTLOGIN && event.code !== EV.AGENTLOGOFF) || !samePbxName(event.queueName, 'NONE') || event.agent === '')
      return false;
    const withQueues = directory.tenantsWithQueues();
    const named = directory.tenantsOfAgent(event.agent).filter((t) => withQueues.includes(t));
    const tenants = named.length > 0 ? named : withQueues.length === 1 ? withQueues : [];
    if (tenants.length === 0) return false;
    const code = event.code === EV.AGENTLOGIN ? EV.AGENTLOGIN_ALL : EV.AGENTLOGOFF_ALL;
    let first = true;
    for (const tenantId of tenants) {
      if (named.length === 0) summary.unknownAgent(event.agent, tenantId, null);
      for (const id of directory.queuesOfTenant(tenantId)) {
        this.enqueue({ id, tenantId }, event, code, this.run.keys.keyOf(`${line}\u0000${id}`, event.time), first);
        first = false;
      }
    }
    return true;
  }

  /** Adds a line's row for a queue to the batch; inserts the batch when it is full. */
  private enqueue(queue: Pick<QueueRef, 'id' | 'tenantId'>, event: QueueLogEvent, code: number, lineKey: number, counts: boolean): void {
    const { directory } = this.run;
    const agent = directory.agentIds(queue.tenantId, event.agent);
    if (event.code === EV.ENTERQUEUE) this.anchors.entered(queue.id, event.callid, event.time);
    const b = this.batch;
    const anchor = isCallEvent(code) ? this.anchors.anchorOf(queue.id, event.callid, event.time) : event.time;
    const peer = agent.peer ?? '';
    b.events[b.size] = event;
    b.counts[b.size] = counts;
    b.replay[b.size] =
      code === EV.AGENTLOGIN_ALL || code === EV.AGENTLOGOFF_ALL || event.agent.startsWith('Agent/') || peer.startsWith('Agent/');
    b.rows[b.size] = {
      queueId: queue.id,
      anchor,
      time: event.time,
      lineKey,
      seq: this.seq++,
      event: code,
      callid: isMemberEvent(code) ? null : event.callid,
      agent: agent.agent,
      rawAgent: rawOrNull(agent),
      waitTime: event.waitTime < 0 ? event.time - anchor : event.waitTime, // an Asterisk 1.4 exit (R17)
      talkTime: event.talkTime,
      ringMs: event.ringMs,
      pauseReason: event.pauseReason,
      caller: event.callerIdNum,
      callerKey: event.callerIdNum === null ? null : callerKey(event.callerIdNum),
      position: event.position,
      origPosition: event.origPosition,
    };
    if (++b.size === EVENTS_PER_INSERT) this.flush();
  }

  /**
   * QUEUESTART or CONFIGRELOAD (queue NONE): a start of the PBX of every tenant the import may write to
   * (R15). A start older than a queue's newest line makes its intervals stale.
   */
  private pbxStarted(time: number): void {
    const { summary, directory } = this.run;
    let stored = false;
    for (const tenantId of directory.tenantsWithQueues()) {
      if (!this.starts.add(tenantId, time)) continue;
      stored = true;
      for (const queueId of directory.queuesOfTenant(tenantId)) this.run.sawLine(queueId, time);
    }
    if (stored) summary.imported++;
    else summary.duplicates++;
  }

  /** Inserts the batch; each new row then counts in the derived data (and in `items` for an onChunk hook). */
  private flush(): void {
    const b = this.batch;
    if (b.size === 0) return;
    this.repo.events.insert(b.rows, b.size, b.stored);
    for (let i = 0; i < b.size; i++) {
      const row = b.rows[i] as QueueEventRow;
      if (this.afterInsert(row, b.stored[i] === true, b.counts[i] === true, b.replay[i] === true) && this.run.collects)
        this.items.push({ queueId: row.queueId, event: b.events[i] as QueueLogEvent });
    }
    b.size = 0;
  }

  /**
   * What a new line changes besides its row: late marks, the per-hour sums, intervals (stepped, or replayed
   * for the whole queue when logins decide them, R15). Returns whether it was new.
   */
  private afterInsert(row: QueueEventRow, stored: boolean, counts: boolean, replay: boolean): boolean {
    const { summary } = this.run;
    if (!stored) {
      if (counts) summary.duplicates++;
      if (row.caller !== null || row.position !== null) this.repo.fillDetails(row);
      return false;
    }
    if (counts) summary.imported++;
    this.run.sawLine(row.queueId, row.time);
    this.hours.add(row);
    if (replay) this.run.replayFrom(row.queueId, row.time);
    else if (showsMembership(row.event) && this.intervals.apply(row)) this.run.outboundChanged(row.queueId, row.time);
    return true;
  }
}
