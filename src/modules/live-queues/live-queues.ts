import { EventEmitter } from 'node:events';
import type { Logger } from '../../log';
import { AmiClient, AmiError, type AmiClientOptions, type AmiStatus, type AmiTarget } from '../../ami/ami-client';
import type { AmiMessage } from '../../ami/ami-protocol';
import {
  ACTION_CHANNEL,
  forwardAction,
  ForwardTimeout,
  linkLock,
  LIVE_CHANNEL,
  publish,
  readPublished,
  readSignal,
  serveActions,
  type LiveSharing,
} from './live-share';
import { forgetActions } from './live-share.repository';
import { LiveState, type LiveQueue } from './live-state';

const HOUR_MS = 3_600_000;

/** One PBX as the live layer knows it. */
export interface LivePbx {
  readonly label: string;
  readonly status: AmiStatus;
  /** When the last event or snapshot arrived; undefined before the first. */
  readonly lastEventAt: Date | undefined;
  /** When the queues were last read whole (QueueStatus). */
  readonly snapshotAt: Date | undefined;
  readonly queues: ReadonlyMap<string, LiveQueue>;
  /** This instance's connection to the PBX: open only while it holds the link (`holdsLink`). */
  readonly client: AmiClient;
  /** Whether this instance holds the PBX's AMI link; on SQLite (one process) always, once started. */
  readonly holdsLink: boolean;
  /**
   * Carries out an action on the PBX: through this instance's link, or asked of the instance that holds it.
   * Resolves when Asterisk succeeded; rejects with an AmiError carrying Asterisk's message when it refused.
   */
  action(fields: Readonly<Record<string, string | number>>): Promise<void>;
}

export interface LiveQueuesOptions extends AmiClientOptions {
  /** How often the queues are read whole again and the kept state replaced (reconciled). Default 5 minutes. */
  readonly snapshotEveryMs?: number;
  /**
   * Several instances on one PostgreSQL database: one holds each PBX's link and publishes its state, the others
   * follow it (./live-share.ts). Without it (SQLite: one process) this instance holds every link.
   */
  readonly sharing?: LiveSharing;
}

class Pbx implements LivePbx {
  readonly state = new LiveState();
  lastEventAt: Date | undefined;
  snapshotAt: Date | undefined;
  timer: NodeJS.Timeout | undefined;
  holdsLink = false;
  /** The holder's link as it published it (while this instance follows). */
  published: AmiStatus | undefined;
  /** The version of the state this instance last wrote (holding) or read (following). */
  version = 0;
  /** Queues changed since the last write (holding); 'all' after a snapshot or a change of the link. */
  dirty: Set<string> | 'all' | undefined;
  publishTimer: NodeJS.Timeout | undefined;
  /** The last event's time as last written (holding): a newer one is written at the next tick. */
  publishedEventAt = 0;

  constructor(
    readonly client: AmiClient,
    private readonly forward: (pbx: Pbx, fields: Readonly<Record<string, string | number>>) => Promise<void>,
    private readonly created: Date,
  ) {}

  get label(): string {
    return this.client.target.label;
  }
  get status(): AmiStatus {
    if (this.holdsLink) return this.client.status;
    return this.published ?? { state: 'connecting', since: this.created, reason: 'no instance holds the link yet', banner: undefined };
  }
  get queues(): ReadonlyMap<string, LiveQueue> {
    return this.state.queues;
  }
  async action(fields: Readonly<Record<string, string | number>>): Promise<void> {
    if (this.holdsLink) await this.client.action(fields);
    else await this.forward(this, fields);
  }
}

/**
 * The live layer: one self-reconnecting AMI connection per configured PBX, each with the queue state it
 * describes. On every (re)connect and then every few minutes the queues are read whole (QueueStatus) and the
 * state replaced; in between the queue events keep it. `change` says which queue of which PBX changed (or
 * `undefined` for all of them: a snapshot, the link going up or down), for the stream and the alerts.
 */
export class LiveQueues extends EventEmitter<{
  change: [pbx: LivePbx, queue: string | undefined];
  /** Every AMI event, as it arrived (the live call events). */
  ami: [pbx: LivePbx, message: AmiMessage, arrived: Date];
  stop: [];
}> {
  private readonly list: Pbx[];
  private readonly now: () => Date;
  private readonly snapshotEveryMs: number;
  private readonly sharing: LiveSharing | undefined;
  private readonly actionTimeoutMs: number;
  private campaignTimer: NodeJS.Timeout | undefined;
  private readonly stopListening: (() => Promise<void>)[] = [];
  private stopped = false;
  private forgotAt = 0;

  constructor(
    targets: readonly AmiTarget[],
    private readonly log: Logger,
    options: LiveQueuesOptions = {},
  ) {
    super();
    this.now = options.now ?? (() => new Date());
    this.snapshotEveryMs = options.snapshotEveryMs ?? 5 * 60_000;
    this.sharing = options.sharing;
    this.actionTimeoutMs = options.actionTimeoutMs ?? 10_000;
    const forward = (pbx: Pbx, fields: Readonly<Record<string, string | number>>) => this.forward(pbx, fields);
    this.list = targets.map((t) => new Pbx(new AmiClient(t, { ...options, now: this.now }), forward, this.now()));
  }

  get configured(): boolean {
    return this.list.length > 0;
  }

  get pbxs(): readonly LivePbx[] {
    return this.list;
  }

  start(): void {
    for (const pbx of this.list) {
      pbx.client.on('status', (status) => {
        if (!pbx.holdsLink) return;
        if (status.state !== 'connected') this.log.warn({ pbx: pbx.label, state: status.state, reason: status.reason }, 'AMI link not up');
        this.changed(pbx, undefined);
      });
      pbx.client.on('ready', () => {
        this.log.info({ pbx: pbx.label }, 'AMI connected');
        void this.refresh(pbx);
      });
      pbx.client.on('event', (m) => this.onEvent(pbx, m));
      if (!this.sharing) this.lead(pbx);
    }
    if (this.sharing && this.list.length > 0) void this.startSharing(this.sharing);
  }

  /** Closes every AMI link (on PostgreSQL: gives them up to another instance); what follows the live state (the streams) ends. */
  stop(): void {
    this.stopped = true;
    this.emit('stop');
    clearTimeout(this.campaignTimer);
    for (const stop of this.stopListening.splice(0)) void stop().catch(() => undefined);
    for (const pbx of this.list) {
      clearTimeout(pbx.timer);
      clearTimeout(pbx.publishTimer);
      pbx.client.removeAllListeners();
      pbx.client.stop();
    }
    // Ending the coordinator's session gives the links up at once: another instance takes them without waiting.
    if (this.sharing) void this.sharing.coordinator.close();
  }

  /** This instance holds the PBX's link from now on: it opens it, and (sharing) publishes what it learns. */
  private lead(pbx: Pbx): void {
    pbx.holdsLink = true;
    pbx.published = undefined;
    pbx.client.start();
    if (this.sharing) this.log.info({ pbx: pbx.label }, 'this instance now holds the AMI link');
    this.changed(pbx, undefined);
  }

  /** Another instance holds the link now (this one lost its lock): the link is closed at once, the state followed. */
  private follow(pbx: Pbx): void {
    if (!pbx.holdsLink) return;
    pbx.holdsLink = false;
    clearTimeout(pbx.timer);
    clearTimeout(pbx.publishTimer);
    pbx.dirty = undefined;
    pbx.client.stop();
    this.log.warn({ pbx: pbx.label }, 'this instance no longer holds the AMI link: it follows the one that does');
    void this.load(pbx);
  }

  private async startSharing(sharing: LiveSharing): Promise<void> {
    const { coordinator } = sharing;
    coordinator.on('lost', (names) => {
      for (const pbx of this.list) if (names.includes(linkLock(pbx.label))) this.follow(pbx);
    });
    // Signals sent while the session was away are lost: read everything again.
    coordinator.on('reconnected', () => {
      for (const pbx of this.list) if (!pbx.holdsLink) void this.load(pbx);
    });
    try {
      this.stopListening.push(
        await coordinator.listen(LIVE_CHANNEL, (text) => {
          const signal = readSignal(text);
          const pbx = signal && this.list.find((p) => p.label === signal.pbx);
          if (pbx && !pbx.holdsLink && signal.version > pbx.version) void this.load(pbx, signal.queues);
        }),
        await coordinator.listen(ACTION_CHANNEL, (id) => void this.serve([Number(id)])),
      );
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'the live layer cannot listen for other instances yet; it tries again');
    }
    await this.campaign();
  }

  /**
   * Every few seconds: try to take each link this instance does not hold (the holder died, or none has it yet),
   * make sure the session that holds the others is still there (else give them up at once: fencing), and carry
   * out actions whose signal was missed.
   */
  private async campaign(): Promise<void> {
    const sharing = this.sharing;
    if (!sharing || this.stopped) return;
    try {
      if (this.list.some((p) => p.holdsLink)) await sharing.coordinator.ping(Math.max(1_000, sharing.campaignMs ?? 2_000));
      for (const pbx of this.list) {
        if (this.stopped) return;
        if (pbx.holdsLink) {
          // Events that changed no queue still move "last event": written at most once a tick, naming no queue.
          if ((pbx.lastEventAt?.getTime() ?? 0) > pbx.publishedEventAt) this.changed(pbx, null);
          continue;
        }
        if (await sharing.coordinator.tryHold(linkLock(pbx.label))) {
          // The last holder's version goes on growing, so followers take this holder's writes as newer.
          const last = await readPublished(sharing.db, pbx.label);
          pbx.version = Math.max(pbx.version, last?.version ?? 0);
          if (!this.stopped) this.lead(pbx);
        } else if (pbx.version === 0) await this.load(pbx);
      }
      await this.serve();
      await this.forgetOldActions(sharing);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'the live layer could not reach the database; it tries again');
    }
    if (this.stopped) return;
    this.campaignTimer = setTimeout(() => void this.campaign(), sharing.campaignMs ?? 2_000);
    this.campaignTimer.unref();
  }

  /** Once an hour, a holder deletes the actions asked more than a day ago: the table keeps only the last day's. */
  private async forgetOldActions(sharing: LiveSharing): Promise<void> {
    const now = this.now().getTime();
    if (now - this.forgotAt < HOUR_MS || !this.list.some((p) => p.holdsLink)) return;
    this.forgotAt = now;
    await forgetActions(sharing.db, now - 24 * HOUR_MS);
  }

  /** A follower reads the published state of a PBX and takes it whole (`queues`: the ones the signal named). */
  private async load(pbx: Pbx, queues?: readonly string[] | null): Promise<void> {
    if (!this.sharing) return;
    try {
      const published = await readPublished(this.sharing.db, pbx.label);
      if (!published || pbx.holdsLink || published.version <= pbx.version) return;
      pbx.version = published.version;
      pbx.published = published.status;
      pbx.lastEventAt = published.lastEventAt;
      pbx.snapshotAt = published.snapshotAt;
      pbx.state.replace(published.queues);
      // A signal naming queues: those changed; naming none: only the last event's time; null or none: all.
      if (queues) for (const q of queues) this.emit('change', pbx, q);
      else this.emit('change', pbx, undefined);
    } catch (err) {
      this.log.warn({ pbx: pbx.label, err: (err as Error).message }, 'could not read the live state another instance published');
    }
  }

  /**
   * Something of the PBX changed (a queue; undefined: all of it; null: only the time of its last event): tell the
   * listeners, and (holding, sharing) publish it soon.
   */
  private changed(pbx: Pbx, queue: string | undefined | null): void {
    if (queue !== null) this.emit('change', pbx, queue);
    const sharing = this.sharing;
    if (!sharing || !pbx.holdsLink) return;
    if (queue === undefined || pbx.dirty === 'all') pbx.dirty = 'all';
    else {
      pbx.dirty ??= new Set();
      if (queue !== null) pbx.dirty.add(queue);
    }
    pbx.publishTimer ??= setTimeout(() => void this.publish(pbx, sharing), sharing.publishDelayMs ?? 50);
  }

  private async publish(pbx: Pbx, sharing: LiveSharing): Promise<void> {
    const dirty = pbx.dirty;
    pbx.dirty = undefined;
    if (!pbx.holdsLink || dirty === undefined) {
      pbx.publishTimer = undefined;
      return;
    }
    try {
      const written = await publish(
        sharing,
        pbx.label,
        ++pbx.version,
        { status: pbx.client.status, lastEventAt: pbx.lastEventAt, snapshotAt: pbx.snapshotAt },
        pbx.state.queues,
        dirty === 'all' ? null : [...dirty],
        this.now().getTime(),
      );
      pbx.publishedEventAt = pbx.lastEventAt?.getTime() ?? 0;
      if (!written) this.log.warn({ pbx: pbx.label }, 'another instance published a newer live state: this one no longer holds the link');
    } catch (err) {
      pbx.dirty = 'all'; // written whole at the next change or tick
      this.log.warn({ pbx: pbx.label, err: (err as Error).message }, 'could not publish the live state');
    }
    pbx.publishTimer = undefined;
    if (pbx.dirty !== undefined && pbx.holdsLink)
      pbx.publishTimer = setTimeout(() => void this.publish(pbx, sharing), sharing.publishDelayMs ?? 50);
  }

  /** Asks the instance holding the link to carry out an action; Asterisk's refusal comes back as the same AmiError. */
  private async forward(pbx: Pbx, fields: Readonly<Record<string, string | number>>): Promise<void> {
    if (!this.sharing) throw new AmiError('the PBX is not connected');
    if (pbx.status.state !== 'connected') throw new AmiError(`the PBX is not connected (${pbx.status.state})`);
    let error: string | undefined;
    try {
      error = await forwardAction(this.sharing, pbx.label, fields, this.actionTimeoutMs, () => this.now().getTime());
    } catch (err) {
      // No answer in time is what the holder's own link says when Asterisk does not answer: the same AmiError.
      if (err instanceof ForwardTimeout) throw new AmiError(err.message);
      throw err;
    }
    if (error !== undefined) throw new AmiError(error);
  }

  /** Carries out the actions other instances asked of the links this one holds. */
  private async serve(ids?: readonly number[]): Promise<void> {
    const sharing = this.sharing;
    if (!sharing) return;
    const held = () => this.list.filter((p) => p.holdsLink).map((p) => p.label);
    if (held().length === 0) return;
    try {
      await serveActions(
        sharing,
        held,
        async (label, fields) => {
          const pbx = this.list.find((p) => p.label === label && p.holdsLink);
          if (!pbx) return 'this instance no longer holds the link';
          return pbx.client.action(fields).then(
            () => undefined,
            (err: Error) => err.message,
          );
        },
        () => this.now().getTime(),
        ids,
      );
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'could not carry out the actions other instances asked');
    }
  }

  /** Reads the queues whole and replaces the state (and schedules the next read). */
  private async refresh(p: Pbx): Promise<void> {
    clearTimeout(p.timer);
    try {
      const reply = await p.client.action({ Action: 'QueueStatus' });
      const at = this.now();
      p.state.snapshot(reply.events, at);
      p.snapshotAt = at;
      p.lastEventAt = at;
      this.changed(p, undefined);
    } catch (err) {
      this.log.warn({ pbx: p.label, err: (err as Error).message }, 'AMI QueueStatus failed');
      // A link that no longer answers (half-open after a network fault) is opened again, with a fresh snapshot.
      if (p.client.status.state === 'connected') p.client.reconnect(`QueueStatus failed: ${(err as Error).message}`);
    }
    if (p.client.status.state === 'connected') {
      p.timer = setTimeout(() => void this.refresh(p), this.snapshotEveryMs);
      p.timer.unref();
    }
  }

  private onEvent(pbx: Pbx, m: AmiMessage): void {
    const at = this.now();
    pbx.lastEventAt = at;
    const changed = pbx.state.apply(m, at);
    this.emit('ami', pbx, m, at);
    if (changed !== undefined) this.changed(pbx, changed);
  }
}
