import { AnchorCache } from './anchors';
import { callerKey } from './digits';
import { rawOrNull, type QueueRef, type ResolvedAgent } from './directory';
import { HourAccumulator } from './derived-hours';
import { ImportRefused, ImportRun, type ImportOptions, type StoredChunk } from './import-run';
import type { ImportSummary } from './import-summary';
import type { ImportStore, QueueEventRow } from './import-store';
import { IntervalWriter } from './intervals';
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
import { importStore, type ImportTarget } from './stores';

const HEADER_ROW = 'header row';

const SEQ_COUNTER = 'queue_log_seq';

/**
 * Imports queue_log lines (reporting.md R1–R4, R10), one chunk per call of `importLines`, one write
 * transaction per chunk; `finish()` then rebuilds whatever late lines made stale. Rows are inserted
 * the store's eventsPerInsert at a time; what each line changes besides its row follows once its insert tells
 * whether it was new. What a line needs from the database (an agent name met first, a call's ENTERQUEUE stored
 * before) is awaited only when it is not known here yet: most lines are stored without a promise of their own.
 */
export class QueueLogImporter {
  private readonly run: ImportRun;
  private readonly store: ImportStore;
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

  private startsRead = false;

  constructor(target: ImportTarget, opts: ImportOptions = {}) {
    this.store = importStore(target);
    this.run = new ImportRun(this.store, opts);
    this.anchors = new AnchorCache(this.store);
    this.starts = new PbxStarts(this.store);
    this.intervals = new IntervalWriter(this.store, this.starts);
  }

  get summary(): ImportSummary {
    return this.run.summary;
  }

  newFile(): void {
    this.run.newFile();
    this.file = { decided: false, layout: null, checked: false, firstLine: '', lines: 0, records: 0 };
  }

  /** Stores one chunk of lines (file order) in one transaction. */
  async importLines(lines: readonly string[]): Promise<void> {
    await this.run.chunk(
      () => this.storeLines(lines),
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

  async finish(): Promise<ImportSummary> {
    await processPending(this.store);
    await this.forget(); // a rebuild rewrote intervals and anchors behind the caches
    await this.run.recordOutcome();
    return this.run.summary;
  }

  private async forget(): Promise<void> {
    this.anchors.forget();
    this.intervals.forget();
    if (this.startsRead) await this.starts.reload();
    this.run.forgetCaches();
  }

  private async storeLines(lines: readonly string[]): Promise<StoredChunk> {
    if (!this.startsRead) {
      await this.starts.reload();
      this.startsRead = true;
    }
    this.seq = ((await this.store.counter(SEQ_COUNTER)) ?? 0) + 1;
    const items: { queueId: number; event: QueueLogEvent }[] = [];
    this.items = items;
    for (const line of lines) {
      const pending = this.addLine(line);
      if (pending) await pending;
    }
    await this.flush();
    this.checkLayout();
    await this.store.setCounter(SEQ_COUNTER, this.seq);
    await this.hours.flush(this.store);
    return { kind: 'queue-log', items };
  }

  /**
   * Parses a line and adds its row to the batch (a skipped line is counted in the summary). Anchors are
   * found here, in file order. A promise when the line needs the database (else nothing: the common case).
   */
  private addLine(line: string): Promise<void> | undefined {
    const { summary, directory } = this.run;
    summary.read++;
    const f = this.file;
    if (!f.decided && line.trim() !== '') {
      const { layout, header } = detectLayout(line);
      f.decided = true;
      f.layout = layout;
      if (header) {
        summary.skip(HEADER_ROW);
        return undefined;
      }
    }
    const event = parseQueueLogLine(f.layout ? toNative(line, f.layout) : line, this.run.zone);
    if (event !== QUEUE_LOG_SKIPS.blank && f.lines++ === 0) f.firstLine = line;
    if (typeof event === 'string') {
      if (event !== QUEUE_LOG_SKIPS.notRecord && event !== QUEUE_LOG_SKIPS.blank) f.records++;
      summary.skip(event);
      return undefined;
    }
    f.records++;
    if (event.wallClock) summary.wallTimes = true;
    if (isPbxStart(event.code)) return this.pbxStarted(event.time);
    const queue = directory.queueByLogName(event.queueName);
    if (!queue) return this.loginEverywhere(event, line);
    return this.enqueue(queue, event, event.code, this.run.keys.keyOf(line, event.time), true, true);
  }

  /**
   * A line of no queue known: AGENTLOGIN / AGENTLOGOFF of queue NONE (R15) is stored in every queue of the
   * agent's tenant (the tenant where its name resolves, else the import's only tenant), where a replay of the
   * queue's lines decides whether it is a member there; any other line (or one naming no tenant) is skipped.
   */
  private loginEverywhere(event: QueueLogEvent, line: string): Promise<void> | undefined {
    const { directory, summary } = this.run;
    const withQueues = directory.tenantsWithQueues();
    const login =
      (event.code === EV.AGENTLOGIN || event.code === EV.AGENTLOGOFF) && samePbxName(event.queueName, 'NONE') && event.agent !== '';
    const named = login ? directory.tenantsOfAgent(event.agent).filter((t) => withQueues.includes(t)) : [];
    const tenants = !login ? [] : named.length > 0 ? named : withQueues.length === 1 ? withQueues : [];
    if (tenants.length === 0) {
      summary.skip('unknown queue');
      summary.unknownQueue(event.queueName);
      return undefined;
    }
    return this.storeEverywhere(event, line, tenants, named.length === 0);
  }

  private async storeEverywhere(event: QueueLogEvent, line: string, tenants: readonly number[], unnamed: boolean): Promise<void> {
    const { directory, summary } = this.run;
    const code = event.code === EV.AGENTLOGIN ? EV.AGENTLOGIN_ALL : EV.AGENTLOGOFF_ALL;
    let first = true;
    for (const tenantId of tenants) {
      if (unnamed) summary.unknownAgent(event.agent, tenantId, null);
      for (const id of directory.queuesOfTenant(tenantId)) {
        const pending = this.enqueue({ id, tenantId }, event, code, this.run.keys.keyOf(`${line}\u0000${id}`, event.time), first, false);
        if (pending) await pending;
        first = false;
      }
    }
  }

  /**
   * Adds a line's row for a queue to the batch; inserts the batch when it is full. `checkAgent`: an agent name
   * that names no extension of the queue's tenant is counted in the summary.
   */
  private enqueue(
    queue: Pick<QueueRef, 'id' | 'tenantId'>,
    event: QueueLogEvent,
    code: number,
    lineKey: number,
    counts: boolean,
    checkAgent: boolean,
  ): Promise<void> | undefined {
    const agent = this.run.directory.agentIds(queue.tenantId, event.agent);
    if (event.code === EV.ENTERQUEUE) this.anchors.entered(queue.id, event.callid, event.time);
    const anchor = isCallEvent(code) ? this.anchors.anchorOf(queue.id, event.callid, event.time) : event.time;
    if (agent === undefined || anchor === undefined) return this.enqueueLooked(queue, event, code, lineKey, counts, checkAgent);
    this.push(queue, event, code, lineKey, counts, checkAgent, agent, anchor);
    return this.batch.size === this.store.eventsPerInsert ? this.flush() : undefined;
  }

  /** enqueue, once the agent name and the call's ENTERQUEUE are read from the database. */
  private async enqueueLooked(
    queue: Pick<QueueRef, 'id' | 'tenantId'>,
    event: QueueLogEvent,
    code: number,
    lineKey: number,
    counts: boolean,
    checkAgent: boolean,
  ): Promise<void> {
    const agent = await this.run.directory.resolveAgent(queue.tenantId, event.agent);
    const known = isCallEvent(code) ? this.anchors.anchorOf(queue.id, event.callid, event.time) : event.time;
    const anchor = known ?? (await this.anchors.lookUp(queue.id, event.callid, event.time));
    this.push(queue, event, code, lineKey, counts, checkAgent, agent, anchor);
    if (this.batch.size === this.store.eventsPerInsert) await this.flush();
  }

  private push(
    queue: Pick<QueueRef, 'id' | 'tenantId'>,
    event: QueueLogEvent,
    code: number,
    lineKey: number,
    counts: boolean,
    checkAgent: boolean,
    agent: ResolvedAgent,
    anchor: number,
  ): void {
    if (checkAgent && event.agent !== '' && agent.peer === undefined) this.run.summary.unknownAgent(event.agent, queue.tenantId, queue.id);
    const b = this.batch;
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
    b.size++;
  }

  /**
   * QUEUESTART or CONFIGRELOAD (queue NONE): a start of the PBX of every tenant the import may write to
   * (R15). A start older than a queue's newest line makes its intervals stale.
   */
  private async pbxStarted(time: number): Promise<void> {
    const { summary, directory } = this.run;
    let stored = false;
    for (const tenantId of directory.tenantsWithQueues()) {
      if (!(await this.starts.add(tenantId, time))) continue;
      stored = true;
      for (const queueId of directory.queuesOfTenant(tenantId)) {
        await this.run.loadNewest(queueId);
        this.run.sawLine(queueId, time);
      }
    }
    if (stored) summary.imported++;
    else summary.duplicates++;
  }

  /** Inserts the batch; each new row then counts in the derived data (and in `items` for an onChunk hook). */
  private async flush(): Promise<void> {
    const b = this.batch;
    if (b.size === 0) return;
    await this.store.insertEvents(b.rows, b.size, b.stored);
    for (let i = 0; i < b.size; i++) {
      const row = b.rows[i] as QueueEventRow;
      const stored = b.stored[i] === true;
      const counts = b.counts[i] === true;
      if (!stored) {
        if (counts) this.run.summary.duplicates++;
        if (row.caller !== null || row.position !== null) await this.store.fillDetails(row);
        continue;
      }
      const after = this.afterInsert(row, counts, b.replay[i] === true);
      if (after) await after;
      if (this.run.collects) this.items.push({ queueId: row.queueId, event: b.events[i] as QueueLogEvent });
    }
    b.size = 0;
  }

  /**
   * What a new line changes besides its row: late marks, the per-hour sums, intervals (stepped, or replayed
   * for the whole queue when logins decide them, R15). A promise when it needs the database.
   */
  private afterInsert(row: QueueEventRow, counts: boolean, replay: boolean): Promise<void> | undefined {
    if (!this.run.knowsNewest(row.queueId)) return this.run.loadNewest(row.queueId).then(() => this.afterInsert(row, counts, replay));
    if (counts) this.run.summary.imported++;
    this.run.sawLine(row.queueId, row.time);
    this.hours.add(row);
    if (replay) {
      this.run.replayFrom(row.queueId, row.time);
      return undefined;
    }
    if (!showsMembership(row.event)) return undefined;
    const membership = this.intervals.apply(row);
    if (membership === false) return undefined;
    if (membership === true) {
      this.run.outboundChanged(row.queueId, row.time);
      return undefined;
    }
    return membership.then((changed) => {
      if (changed) this.run.outboundChanged(row.queueId, row.time);
    });
  }
}
