import { EventEmitter } from 'node:events';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, rootCertificates } from 'node:tls';
import { isSingleLine, SINGLE_LINE_RULE } from '../text-rules';
import { AmiParser, formatAction, type AmiMessage } from './ami-protocol';

/** Where one PBX's manager interface is: from `ami://user:secret@host:5038` or `amis://…` (TLS). */
export interface AmiTarget {
  readonly host: string;
  readonly port: number;
  readonly tls: boolean;
  readonly username: string;
  readonly secret: string;
  /** The URL without its secret: what logs and the API show. */
  readonly label: string;
}

/**
 * The event classes asked for at login: app_queue.c sends its queue and member events as `agent`, cdr_manager
 * its records as `cdr`. Everything else (channels, dialplan, VarSet: 93 % of the recorded run's events, 91 % of its bytes) is not sent.
 */
export const EVENT_CLASSES = 'agent,cdr';

/** Asterisk's defaults (manager.conf `port`, `tlsbindport`). */
const DEFAULT_PORT = { ami: 5038, amis: 5039 } as const;

/** Reads one AMI URL; throws an Error saying what is wrong with it (never echoing the secret). */
export function parseAmiUrl(text: string): AmiTarget {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error('an AMI URL looks like ami://user:secret@host:5038 (or amis:// for TLS)');
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== 'ami' && scheme !== 'amis') throw new Error(`an AMI URL starts with ami:// or amis://, not ${scheme}://`);
  if (url.hostname === '') throw new Error('an AMI URL names the PBX host');
  if (url.username === '' || url.password === '') throw new Error('an AMI URL carries the manager user and secret: ami://user:secret@host');
  const port = url.port === '' ? DEFAULT_PORT[scheme] : Number(url.port);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let username: string;
  let secret: string;
  try {
    username = decodeURIComponent(url.username);
    secret = decodeURIComponent(url.password);
  } catch {
    throw new Error("an AMI URL's user and secret are percent-encoded UTF-8 (a % not followed by a UTF-8 byte's two hex digits)");
  }
  // They are sent as the Login action's headers: one line each, by the rule of every AMI header (ami-protocol.ts).
  if (!isSingleLine(username) || !isSingleLine(secret))
    throw new Error(`an AMI URL's user and secret are sent as AMI headers: each ${SINGLE_LINE_RULE}`);
  return { host, port, tls: scheme === 'amis', username, secret, label: `${scheme}://${username}@${url.host}` };
}

/** What the connection is doing, as the live API reports it. */
export type AmiLinkState = 'connecting' | 'connected' | 'down' | 'refused' | 'stopped';

export interface AmiStatus {
  readonly state: AmiLinkState;
  /** When the state last changed. */
  readonly since: Date;
  /** Why it is down or refused (a socket error, Asterisk's answer to the login). */
  readonly reason: string | undefined;
  readonly banner: string | undefined;
}

/** The answer to an action: the Response message and, for list actions (EventList: start), the listed events. */
export interface AmiReply {
  readonly response: AmiMessage;
  readonly events: readonly AmiMessage[];
}

export interface AmiClientOptions {
  readonly now?: () => Date;
  /** First reconnect delay; doubled after each failure up to `maxBackoffMs`. */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** How long an action may wait for its answer (and the banner and login for theirs). */
  readonly actionTimeoutMs?: number;
  /** For amis://: certificates to trust besides the system's (NODE_EXTRA_CA_CERTS does the same for a whole process). */
  readonly ca?: string | Buffer;
}

interface Pending {
  readonly resolve: (reply: AmiReply) => void;
  readonly reject: (err: Error) => void;
  readonly timer: NodeJS.Timeout;
  response: AmiMessage | undefined;
  readonly events: AmiMessage[];
}

export class AmiError extends Error {}

/**
 * A connection to one Asterisk manager interface that keeps itself up: it logs in, answers actions by ActionID
 * (collecting the events of list actions up to their `…Complete` event), hands every other event to
 * `on('event')`, and after any loss reconnects with a doubling backoff. Nothing it does blocks or throws into
 * the server: failures are states (`on('status')`).
 *
 * Written here rather than taken from npm: the AMI clients there (asterisk-manager, asterisk-ami-client, ami-io,
 * yana) have had no release in years, none speaks TLS, and none answers a list action as one reply.
 */
export class AmiClient extends EventEmitter<{
  event: [AmiMessage];
  status: [AmiStatus];
  /** Logged in: the owner takes its snapshot now. */
  ready: [];
}> {
  private socket: Socket | undefined;
  private parser = new AmiParser();
  private readonly pending = new Map<string, Pending>();
  private nextId = 1;
  private backoffMs: number;
  private retryTimer: NodeJS.Timeout | undefined;
  private loginTimer: NodeJS.Timeout | undefined;
  /** Asterisk's answer to a refused login, until the socket it came on has closed. */
  private refusedReason: string | undefined;
  private current: AmiStatus;
  private readonly now: () => Date;
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly actionTimeoutMs: number;
  private readonly ca: string | Buffer | undefined;

  constructor(
    readonly target: AmiTarget,
    options: AmiClientOptions = {},
  ) {
    super();
    this.now = options.now ?? (() => new Date());
    this.minBackoffMs = options.minBackoffMs ?? 1000;
    this.maxBackoffMs = options.maxBackoffMs ?? 60_000;
    this.actionTimeoutMs = options.actionTimeoutMs ?? 10_000;
    this.ca = options.ca;
    this.backoffMs = this.minBackoffMs;
    this.current = { state: 'stopped', since: this.now(), reason: undefined, banner: undefined };
  }

  get status(): AmiStatus {
    return this.current;
  }

  start(): void {
    if (this.current.state !== 'stopped') return;
    this.open();
  }

  /** Closes the connection for good; pending actions fail. */
  stop(): void {
    clearTimeout(this.retryTimer);
    this.teardown('stopped', undefined);
  }

  /** Drops the connection (a link that stopped answering): it is opened again after the backoff. */
  reconnect(reason: string): void {
    this.socket?.destroy(new Error(reason));
  }

  /** Sends an action and waits for Asterisk's answer; rejects when it says Error, times out or the link drops. */
  action(fields: Readonly<Record<string, string | number>>): Promise<AmiReply> {
    if (this.current.state !== 'connected') return Promise.reject(new AmiError(`the PBX is not connected (${this.current.state})`));
    return this.send(fields);
  }

  private send(fields: Readonly<Record<string, string | number>>): Promise<AmiReply> {
    const socket = this.socket;
    if (!socket) return Promise.reject(new AmiError('the PBX is not connected'));
    const id = `tars-${this.nextId++}`;
    let text: string;
    try {
      text = formatAction({ ...fields, ActionID: id });
    } catch (err) {
      return Promise.reject(err as Error); // an AmiFormatError: nothing was written
    }
    return new Promise<AmiReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new AmiError(`no answer to ${String(fields.Action)} within ${this.actionTimeoutMs} ms`));
      }, this.actionTimeoutMs);
      this.pending.set(id, { resolve, reject, timer, response: undefined, events: [] });
      socket.write(text);
    });
  }

  private setStatus(state: AmiLinkState, reason: string | undefined): void {
    this.current = { state, since: this.now(), reason, banner: this.parser.bannerLine ?? this.current.banner };
    this.emit('status', this.current);
  }

  private open(): void {
    this.parser = new AmiParser();
    this.setStatus('connecting', undefined);
    const { host, port } = this.target;
    const socket = this.target.tls
      ? tlsConnect({ host, port, servername: isIP(host) ? undefined : host, ...(this.ca ? { ca: [...rootCertificates, this.ca] } : {}) })
      : netConnect({ host, port });
    this.socket = socket;
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 30_000);
    // The banner and the login must come within the action timeout, or the peer is not an AMI.
    this.loginTimer = setTimeout(() => socket.destroy(new Error('no AMI banner or login answer in time')), this.actionTimeoutMs);
    socket.on('data', (chunk: Buffer) => this.receive(socket, chunk));
    socket.on('error', (err) => this.lost(socket, err.message));
    socket.on('close', () => this.lost(socket, 'the PBX closed the connection'));
  }

  private receive(socket: Socket, chunk: Buffer): void {
    if (socket !== this.socket) return;
    const hadBanner = this.parser.bannerLine !== undefined;
    let messages: AmiMessage[];
    try {
      messages = this.parser.push(chunk);
    } catch (err) {
      socket.destroy(err as Error);
      return;
    }
    if (!hadBanner && this.parser.bannerLine !== undefined) this.login(socket);
    for (const m of messages) this.dispatch(m);
  }

  private login(socket: Socket): void {
    const banner = this.parser.bannerLine ?? '';
    if (!/^Asterisk Call Manager\//.test(banner)) {
      socket.destroy(new Error(`not an Asterisk manager interface (banner "${banner.slice(0, 60)}")`));
      return;
    }
    const { username, secret } = this.target;
    this.send({ Action: 'Login', Username: username, Secret: secret, Events: EVENT_CLASSES }).then(
      () => {
        clearTimeout(this.loginTimer);
        this.backoffMs = this.minBackoffMs;
        this.setStatus('connected', undefined);
        this.emit('ready');
      },
      (err: Error) => {
        if (socket !== this.socket) return;
        this.refusedReason = err.message;
        socket.destroy();
      },
    );
  }

  private dispatch(m: AmiMessage): void {
    const id = m.ActionID;
    const waiting = id === undefined ? undefined : this.pending.get(id);
    if (!waiting) {
      if (m.Event !== undefined) this.emit('event', m);
      return;
    }
    if (m.Response !== undefined) {
      if (m.Response === 'Error') return this.settle(id as string, new AmiError(m.Message ?? 'Asterisk answered Error'));
      waiting.response = m;
      if (m.EventList !== 'start') this.settle(id as string, undefined);
      return;
    }
    // An event of a list action: the list ends with its `…Complete` event (EventList: Complete).
    if (m.EventList === 'Complete') this.settle(id as string, undefined);
    else waiting.events.push(m);
  }

  private settle(id: string, err: Error | undefined): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (err) p.reject(err);
    else p.resolve({ response: p.response ?? {}, events: p.events });
  }

  private teardown(state: AmiLinkState, reason: string | undefined): void {
    clearTimeout(this.loginTimer);
    const socket = this.socket;
    this.socket = undefined;
    socket?.destroy();
    for (const [id, p] of [...this.pending]) {
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(new AmiError(reason ?? 'the connection was closed'));
    }
    this.setStatus(state, reason);
  }

  private lost(socket: Socket, reason: string): void {
    if (socket !== this.socket) return;
    const refused = this.refusedReason;
    this.refusedReason = undefined;
    this.teardown(refused ? 'refused' : 'down', refused ? `login refused: ${refused}` : reason);
    // A refused login will not get better quickly: wait the longest backoff before asking again.
    const delay = refused ? this.maxBackoffMs : this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.maxBackoffMs);
    this.retryTimer = setTimeout(() => this.open(), delay * (0.8 + Math.random() * 0.4));
    this.retryTimer.unref();
  }
}

/** Parses TARS_AMI_URL: one or more AMI URLs, comma-separated; throws with every problem at once. */
export function parseAmiUrls(text: string | undefined): AmiTarget[] {
  if (text === undefined || text.trim() === '') return [];
  const problems: string[] = [];
  const targets = text
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '')
    .flatMap((u, i) => {
      try {
        return [parseAmiUrl(u)];
      } catch (err) {
        problems.push(`URL ${i + 1}: ${(err as Error).message}`);
        return [];
      }
    });
  if (problems.length > 0) throw new Error(problems.join('; '));
  return targets;
}
