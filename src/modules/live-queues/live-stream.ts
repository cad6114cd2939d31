import type { IncomingMessage, ServerResponse } from 'node:http';
import { OPERATOR } from '../../access/caller';
import type { TenantScope } from '../../access/scope';
import { tooManyRequests } from '../../errors';
import type { EventStream } from '../../http/route';
import type { LivePbx } from './live-queues';
import { TenantView, type LiveDeps } from './live.service';

export interface LiveStreamOptions {
  /** A comment line this often keeps proxies and clients from closing an idle stream. */
  readonly heartbeatMs?: number;
  /** How often a tenant's directory and today's counters are read again (and its callers' access checked again). */
  readonly refreshMs?: number;
  /** A client that has this much unsent is too slow: it is dropped (it reconnects with Last-Event-ID). */
  readonly maxBufferedBytes?: number;
  /** Events kept per tenant for a client that reconnects with Last-Event-ID. */
  readonly replayEvents?: number;
  /** Streams one user may hold open at once (MAX_STREAMS_PER_USER; tests set fewer). */
  readonly maxStreamsPerUser?: number;
}

/**
 * Streams one user may hold open at once: a wallboard, a phone and a few browser tabs. Each stream holds a socket
 * and a share of every change's writes for as long as it lasts; without a cap one token held 200 (issue 27).
 */
export const MAX_STREAMS_PER_USER = 10;
/** What a 429 tells a client to wait: a stream's place comes back when one of the user's streams ends. */
const STREAM_RETRY_AFTER_S = 10;

/** Whether the caller of a stream may still read it (its token, role and tenant), asked at every refresh. */
export type StillAllowed = (req: IncomingMessage) => Promise<boolean>;

interface Client {
  readonly res: ServerResponse;
  readonly req: IncomingMessage;
  readonly stillAllowed: StillAllowed;
  /** Gives the user's place back (once). */
  readonly release: () => void;
}

/** One tenant's stream: its clients, its view of the database, its recent events. */
class Channel {
  readonly clients = new Set<Client>();
  /** The events since the last whole state, for replay (at most replayEvents). */
  readonly recent: { seq: number; text: string }[] = [];
  /** The id of the next event; a client that joins gets the whole state under the id before it. */
  seq = 1;
  view: TenantView;
  todayText = new Map<number, string>();
  /** What changed since the last flush: some queues (ids) or everything. */
  dirty: Set<number> | 'all' = new Set();

  constructor(
    readonly tenantId: number,
    readonly scope: TenantScope,
    view: TenantView,
  ) {
    this.view = view;
  }
}

/** Ids of this process's events: a client that resumes with an id of another run (a restart) gets the whole state. */
const RUN = Date.now().toString(36);

const frame = (seq: number, event: string, data: unknown) => `id: ${RUN}.${seq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * GET /v2/reporting/queues/live/stream: the live view as Server-Sent Events. A client gets the whole view
 * first (`event: state`), then each change (`event: queue`, the changed queue whole; `event: state` again when
 * a PBX was read whole or its link went up or down). Each tenant's view is built once per change and the same
 * bytes written to all of its clients; a write never waits for a client, and a client that falls
 * `maxBufferedBytes` behind is dropped, so a slow client never slows the others. A client that reconnects
 * with `Last-Event-ID` gets what it missed if it is still kept, else the whole state.
 */
export class LiveStreams {
  private readonly channels = new Map<number, Channel>();
  private readonly heartbeatMs: number;
  private readonly refreshMs: number;
  private readonly maxBufferedBytes: number;
  private readonly replayEvents: number;
  private readonly maxStreamsPerUser: number;
  /** Streams each user holds, those being opened included (by user id). */
  private readonly perUser = new Map<number, number>();
  private timers: NodeJS.Timeout[] = [];
  private listening = false;
  private flushing = false;

  constructor(
    private readonly deps: LiveDeps,
    options: LiveStreamOptions = {},
  ) {
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
    this.refreshMs = options.refreshMs ?? 10_000;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 1 << 20;
    this.replayEvents = options.replayEvents ?? 256;
    this.maxStreamsPerUser = options.maxStreamsPerUser ?? MAX_STREAMS_PER_USER;
  }

  /**
   * A stream of a tenant the caller was checked for; the view is read before the first byte is sent. The user's place
   * is taken before anything is awaited, so that parallel requests cannot pass the cap (429 past it), and given back
   * when the stream ends (or never starts).
   */
  async open(tenantId: number, scope: TenantScope, stillAllowed: StillAllowed, userId: number): Promise<EventStream> {
    const release = this.takePlace(userId);
    try {
      let channel = this.channels.get(tenantId);
      if (!channel) {
        const view = await TenantView.load(this.deps, OPERATOR, tenantId);
        channel = this.channels.get(tenantId) ?? new Channel(tenantId, scope, view);
        this.channels.set(tenantId, channel);
      }
      const ch = channel;
      return { attach: (req, res) => this.attach(ch, { req, res, stillAllowed, release }) };
    } catch (err) {
      release();
      throw err;
    }
  }

  private takePlace(userId: number): () => void {
    const held = this.perUser.get(userId) ?? 0;
    if (held >= this.maxStreamsPerUser)
      throw tooManyRequests(
        `You have ${this.maxStreamsPerUser} event streams open, the most one user may: close one (or let it end) first`,
        STREAM_RETRY_AFTER_S,
      );
    this.perUser.set(userId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.perUser.get(userId) ?? 1) - 1;
      if (left > 0) this.perUser.set(userId, left);
      else this.perUser.delete(userId);
    };
  }

  /** Ends every stream (the server is stopping: the live layer's `stop`). */
  readonly stop = (): void => {
    for (const channel of this.channels.values()) for (const c of channel.clients) c.res.end();
    this.channels.clear();
    this.unlisten();
  };

  private unlisten(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.deps.live.off('change', this.onChange);
    this.deps.live.off('stop', this.stop);
    this.listening = false;
  }

  private listen(): void {
    if (this.listening) return;
    this.listening = true;
    this.deps.live.on('change', this.onChange);
    this.deps.live.on('stop', this.stop);
    const heartbeat = setInterval(() => this.heartbeat(), this.heartbeatMs);
    const refresh = setInterval(() => void this.refreshAll(), this.refreshMs);
    heartbeat.unref();
    refresh.unref();
    this.timers = [heartbeat, refresh];
  }

  private attach(opened: Channel, client: Client): void {
    const { req, res } = client;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no', // nginx: pass each event on at once
      Connection: 'keep-alive',
    });
    // HEAD (answered by the GET route) gets the headers only: there is no stream to keep open. Nor is there for a
    // client that left while its view was read (its 'close' has passed).
    if (req.method === 'HEAD' || req.socket.destroyed || res.destroyed) {
      client.release();
      res.end();
      return;
    }
    // The channel may have closed (its last client left) between open and attach: take the current one, or revive it.
    const channel = this.channels.get(opened.tenantId) ?? opened;
    this.channels.set(channel.tenantId, channel);
    this.listen();
    req.socket.setNoDelay(true);
    channel.clients.add(client);
    res.on('close', () => this.leave(channel, client));
    res.write('retry: 2000\n\n');
    const missed = this.missedSince(channel, req.headers['last-event-id']);
    if (missed) for (const e of missed) res.write(e.text);
    else res.write(frame(channel.seq - 1, 'state', channel.view.body(this.deps.live, new Date(this.deps.clock.now()))));
  }

  private leave(channel: Channel, client: Client): void {
    client.release();
    channel.clients.delete(client);
    if (channel.clients.size === 0) this.channels.delete(channel.tenantId);
    if (this.channels.size === 0) this.unlisten();
  }

  /** The kept events after the client's last one, or undefined when it must get the whole state. */
  private missedSince(channel: Channel, header: string | string[] | undefined) {
    const m = typeof header === 'string' ? /^([0-9a-z]+)\.(\d+)$/.exec(header) : null;
    if (!m || m[1] !== RUN) return undefined;
    const last = Number(m[2]);
    if (last >= channel.seq) return undefined;
    if (last === channel.seq - 1) return [];
    const first = channel.recent[0];
    if (!first || first.seq > last + 1) return undefined;
    return channel.recent.filter((e) => e.seq > last);
  }

  /** Sends an event to every client of the channel; a queue change is kept for replay, a whole state starts afresh. */
  private publish(channel: Channel, event: 'state' | 'queue', data: unknown): void {
    const seq = channel.seq++;
    const text = frame(seq, event, data);
    if (event === 'queue') {
      channel.recent.push({ seq, text });
      if (channel.recent.length > this.replayEvents) channel.recent.shift();
    } else {
      channel.recent.length = 0;
    }
    for (const c of channel.clients) {
      if (c.res.writableLength > this.maxBufferedBytes) {
        c.res.destroy(); // too slow: it comes back with Last-Event-ID
        continue;
      }
      c.res.write(text);
    }
  }

  /**
   * A change marks its queue (or, without one, the whole state) of every channel that has it; one flush per turn
   * of the event loop sends each marked queue once. A burst of AMI events read from one TCP chunk (hundreds of
   * them) is one event per queue, not hundreds.
   */
  private readonly onChange = (_pbx: LivePbx, queue: string | undefined): void => {
    for (const channel of this.channels.values()) {
      if (queue === undefined) channel.dirty = 'all';
      else if (channel.dirty !== 'all') {
        const q = channel.view.queueNamed(queue);
        if (q) channel.dirty.add(q.id);
      }
    }
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(this.flush);
    }
  };

  private readonly flush = (): void => {
    this.flushing = false;
    const now = new Date(this.deps.clock.now());
    for (const channel of this.channels.values()) {
      const dirty = channel.dirty;
      channel.dirty = new Set();
      if (dirty === 'all') this.publish(channel, 'state', channel.view.body(this.deps.live, now));
      else
        for (const q of channel.view.queues)
          if (dirty.has(q.id)) this.publish(channel, 'queue', channel.view.queueBody(this.deps.live, q, now));
    }
  };

  private heartbeat(): void {
    for (const channel of this.channels.values()) for (const c of channel.clients) c.res.write(': heartbeat\n\n');
  }

  /** Reads every tenant's view again; a queue whose counters moved (an import) is sent; callers who lost access are dropped. */
  private async refreshAll(): Promise<void> {
    for (const channel of [...this.channels.values()]) {
      try {
        for (const c of [...channel.clients]) if (!(await c.stillAllowed(c.req))) c.res.end();
        if (channel.clients.size === 0) continue;
        channel.view = await TenantView.load(this.deps, OPERATOR, channel.tenantId);
      } catch {
        continue; // the database is closing or busy: the view stays as it was until the next refresh
      }
      const now = new Date(this.deps.clock.now());
      for (const q of channel.view.queues) {
        const body = channel.view.queueBody(this.deps.live, q, now);
        const today = JSON.stringify(body.today);
        if (channel.todayText.has(q.id) && channel.todayText.get(q.id) !== today) this.publish(channel, 'queue', body);
        channel.todayText.set(q.id, today);
      }
    }
  }
}
