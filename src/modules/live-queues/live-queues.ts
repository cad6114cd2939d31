import { EventEmitter } from 'node:events';
import type { Logger } from '../../log';
import { AmiClient, type AmiClientOptions, type AmiStatus, type AmiTarget } from '../../ami/ami-client';
import type { AmiMessage } from '../../ami/ami-protocol';
import { LiveState, type LiveQueue } from './live-state';

/** One PBX as the live layer knows it. */
export interface LivePbx {
  readonly label: string;
  readonly status: AmiStatus;
  /** When the last event or snapshot arrived; undefined before the first. */
  readonly lastEventAt: Date | undefined;
  /** When the queues were last read whole (QueueStatus). */
  readonly snapshotAt: Date | undefined;
  readonly queues: ReadonlyMap<string, LiveQueue>;
  readonly client: AmiClient;
}

export interface LiveQueuesOptions extends AmiClientOptions {
  /** How often the queues are read whole again and the kept state replaced (reconciled). Default 5 minutes. */
  readonly snapshotEveryMs?: number;
}

class Pbx implements LivePbx {
  readonly state = new LiveState();
  lastEventAt: Date | undefined;
  snapshotAt: Date | undefined;
  timer: NodeJS.Timeout | undefined;

  constructor(readonly client: AmiClient) {}

  get label(): string {
    return this.client.target.label;
  }
  get status(): AmiStatus {
    return this.client.status;
  }
  get queues(): ReadonlyMap<string, LiveQueue> {
    return this.state.queues;
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

  constructor(
    targets: readonly AmiTarget[],
    private readonly log: Logger,
    options: LiveQueuesOptions = {},
  ) {
    super();
    this.now = options.now ?? (() => new Date());
    this.snapshotEveryMs = options.snapshotEveryMs ?? 5 * 60_000;
    this.list = targets.map((t) => new Pbx(new AmiClient(t, { ...options, now: this.now })));
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
        if (status.state !== 'connected') this.log.warn({ pbx: pbx.label, state: status.state, reason: status.reason }, 'AMI link not up');
        this.emit('change', pbx, undefined);
      });
      pbx.client.on('ready', () => {
        this.log.info({ pbx: pbx.label }, 'AMI connected');
        void this.refresh(pbx);
      });
      pbx.client.on('event', (m) => this.onEvent(pbx, m));
      pbx.client.start();
    }
  }

  /** Closes every AMI link; whatever follows the live state (the streams) ends with it. */
  stop(): void {
    this.emit('stop');
    for (const pbx of this.list) {
      clearTimeout(pbx.timer);
      pbx.client.removeAllListeners();
      pbx.client.stop();
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
      this.emit('change', p, undefined);
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
    if (changed !== undefined) this.emit('change', pbx, changed);
  }
}
