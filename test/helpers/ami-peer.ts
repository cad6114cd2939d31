import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { AmiParser, formatAction, type AmiMessage } from '../../src/ami/ami-protocol';
import type { Transcript } from './ami-transcript';

/** The manager user of the recorded run (test/fixtures/asterisk/etc/manager.conf): a lab secret. */
export const AMI_USER = { username: 'tars', secret: 'tars-ami-secret' } as const;

/** An action a client sent, as the peer read it. */
export type ReceivedAction = AmiMessage;

/**
 * An Asterisk manager interface on loopback that replays the recorded run: it sends the banner, checks the login,
 * answers QueueStatus with the answer Asterisk gave at the current point of the recording (the client's ActionID
 * put in), answers other actions as `answer` says, and sends the recorded events when told to (`playTo`).
 * Between `playTo` calls the recording stands still, so a test can compare what the client holds with
 * what Asterisk said at that point.
 */
export class AmiPeer {
  readonly received: ReceivedAction[] = [];
  /** The logged-in clients, each with the event classes it asked for (`on`: all). */
  private readonly sockets = new Map<Socket, readonly string[]>();
  private server: Server | undefined;
  /** Index into transcript.checkpoints of the snapshot a QueueStatus gets now. */
  private checkpoint = 0;
  /** How many of transcript.events have been sent. */
  private sent: number;
  private tls = false;
  /** Refusing connections (goDown). */
  private down = false;
  /** While true, actions after the login get no answer at all (a PBX that hangs, or a half-open link). */
  mute = false;
  /** When it gives a message, the peer answers an action with that Error instead (a PBX that refuses). */
  refuse: (action: AmiMessage) => string | undefined = () => undefined;
  /**
   * When true for an action, the peer answers it Success but changes nothing and sends no event: a PBX whose answer
   * and state disagree (what a client told Success must still read the state before it says what was done).
   */
  ignore: (action: AmiMessage) => boolean = () => false;
  /** The members as the recording has them at the current point, by `queue|interface`, in the QueueMember* events' words. */
  private readonly members = new Map<string, Record<string, string>>();

  constructor(private readonly transcript: Transcript) {
    this.sent = transcript.checkpoints[0]?.after ?? 0;
    for (const m of transcript.checkpoints[0]?.answer ?? [])
      if (m.Event === 'QueueMember') {
        const { Name, Location, ActionID: _id, Event: _e, ...rest } = m;
        this.members.set(`${m.Queue}|${Location}`, { ...rest, MemberName: Name ?? '', Interface: Location ?? '' });
      }
  }

  /** Listens on loopback; with `tls` (a certificate and its key) it speaks AMI over TLS, as Asterisk's tlsbindport. */
  async listen(tls?: { cert: string; key: string }): Promise<number> {
    this.tls = tls !== undefined;
    this.server = tls ? createTlsServer(tls, (socket) => this.accept(socket)) : createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    const port = (this.server?.address() as AddressInfo).port;
    return `${this.tls ? 'amis' : 'ami'}://${AMI_USER.username}:${AMI_USER.secret}@127.0.0.1:${port}`;
  }

  /** Sends the recorded events up to checkpoint `index` to every logged-in client; QueueStatus then answers with that checkpoint. */
  playTo(index: number): void {
    const target = this.transcript.checkpoints[index];
    if (!target) throw new Error(`no checkpoint ${index}`);
    const batch = this.transcript.events.slice(this.sent, target.after);
    this.sent = Math.max(this.sent, target.after);
    for (const e of batch) this.follow(e.message);
    // As Asterisk does, each client gets the events of the classes it asked for at login (its Events header).
    for (const [s, classes] of this.sockets)
      s.write(
        batch
          .filter((e) => wanted(classes, e.message))
          .map((e) => e.text)
          .join(''),
      );
    this.checkpoint = index;
  }

  /** Writes raw bytes to every logged-in client (a half message, a message of no queue of the site). */
  write(text: string): void {
    for (const s of this.sockets.keys()) s.write(text);
  }

  /** Drops every connection, as a PBX that restarts would. */
  dropAll(): void {
    for (const s of this.sockets.keys()) s.destroy();
    this.sockets.clear();
  }

  /** Drops every connection and refuses new ones until `comeBack`: a PBX that is down. */
  goDown(): void {
    this.down = true;
    this.dropAll();
  }

  comeBack(): void {
    this.down = false;
  }

  get clients(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(socket: Socket): void {
    if (this.down) {
      socket.destroy();
      return;
    }
    socket.setNoDelay(true);
    const parser = new AmiParser({ expectBanner: false });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.sockets.delete(socket));
    socket.write('Asterisk Call Manager/11.0.0\r\n');
    let loggedIn = false;
    socket.on('data', (chunk: Buffer) => {
      for (const action of parser.push(chunk)) {
        this.received.push(action);
        const id = action.ActionID ?? '';
        if (action.Action === 'Login') {
          loggedIn = action.Username === AMI_USER.username && action.Secret === AMI_USER.secret;
          socket.write(
            formatAction(
              loggedIn
                ? { Response: 'Success', ActionID: id, Message: 'Authentication accepted' }
                : { Response: 'Error', ActionID: id, Message: 'Authentication failed' },
            ),
          );
          if (loggedIn)
            this.sockets.set(
              socket,
              (action.Events ?? 'on').split(',').map((c) => c.trim()),
            );
          else socket.end();
        } else if (this.mute) {
          continue;
        } else if (!loggedIn) {
          socket.write(formatAction({ Response: 'Error', ActionID: id, Message: 'Permission denied' }));
        } else if (action.Action === 'QueueStatus') {
          socket.write(this.queueStatus(id));
        } else if (action.Action === 'Ping') {
          socket.write(formatAction({ Response: 'Success', ActionID: id, Ping: 'Pong', Timestamp: '0' }));
        } else {
          socket.write(this.act(action, id));
        }
      }
    });
  }

  /** Keeps the members as a QueueMember* event says. */
  private follow(m: AmiMessage): void {
    const key = `${m.Queue}|${m.Interface}`;
    if (m.Event === 'QueueMemberRemoved') this.members.delete(key);
    else if (m.Event?.startsWith('QueueMember') && m.Interface !== undefined) {
      const { Event: _e, Privilege: _p, Timestamp: _t, ...fields } = m;
      this.members.set(key, fields as Record<string, string>);
    }
  }

  /**
   * QueueAdd, QueueRemove and QueuePause as app_queue.c answers them (its messages), followed by the event it
   * sends; any other action: Success.
   */
  private act(action: AmiMessage, id: string): string {
    const reply = (fields: Record<string, string>) => formatAction({ ...fields, ActionID: id });
    const refused = this.refuse(action);
    if (refused !== undefined) return reply({ Response: 'Error', Message: refused });
    if (this.ignore(action)) return reply({ Response: 'Success', Message: 'Interface paused successfully' });
    const event = (name: string, fields: Record<string, string>) => {
      this.follow({ Event: name, ...fields });
      return formatAction({ Event: name, Privilege: 'agent,all', ...fields });
    };
    const queues = new Set([...this.members.keys()].map((k) => k.split('|')[0]));
    const key = `${action.Queue}|${action.Interface}`;
    if (action.Action === 'QueueAdd') {
      if (!queues.has(action.Queue ?? '')) return reply({ Response: 'Error', Message: 'Unable to add interface to queue: No such queue' });
      if (this.members.has(key)) return reply({ Response: 'Error', Message: 'Unable to add interface: Already there' });
      const member = {
        Queue: action.Queue ?? '',
        MemberName: action.MemberName ?? action.Interface ?? '',
        Interface: action.Interface ?? '',
        StateInterface: action.Interface ?? '',
        Membership: 'dynamic',
        Penalty: '0',
        CallsTaken: '0',
        LastCall: '0',
        LastPause: '0',
        LoginTime: '0',
        InCall: '0',
        Status: '1',
        Paused: action.Paused === 'true' ? '1' : '0',
        PausedReason: '',
        Ringinuse: '0',
        Wrapuptime: '0',
      };
      return reply({ Response: 'Success', Message: 'Added interface to queue' }) + event('QueueMemberAdded', member);
    }
    if (action.Action === 'QueueRemove') {
      const member = this.members.get(key);
      if (!member) return reply({ Response: 'Error', Message: 'Unable to remove interface: Not there' });
      if (member.Membership !== 'dynamic')
        return reply({ Response: 'Error', Message: 'Unable to remove interface from queue: Not Dynamic' });
      return reply({ Response: 'Success', Message: 'Removed interface from queue' }) + event('QueueMemberRemoved', member);
    }
    if (action.Action === 'QueuePause') {
      const hits = [...this.members.values()].filter(
        (m) => m.Interface === action.Interface && (action.Queue === undefined || m.Queue === action.Queue),
      );
      if (hits.length === 0) return reply({ Response: 'Error', Message: 'Interface not found' });
      const paused = action.Paused === 'true' ? '1' : '0';
      return (
        reply({ Response: 'Success', Message: paused === '1' ? 'Interface paused successfully' : 'Interface unpaused successfully' }) +
        hits
          .map((m) => event('QueueMemberPause', { ...m, Paused: paused, PausedReason: paused === '1' ? (action.Reason ?? '') : '' }))
          .join('')
      );
    }
    return reply({ Response: 'Success' });
  }

  /** The recorded answer at the current checkpoint, as Asterisk sends a list: a Response, the events, a Complete. */
  private queueStatus(id: string): string {
    const answer = this.transcript.checkpoints[this.checkpoint]?.answer ?? [];
    let text = formatAction({ Response: 'Success', ActionID: id, EventList: 'start', Message: 'Queue status will follow' });
    for (const m of answer) text += formatAction({ ...m, ActionID: id });
    text += formatAction({ Event: 'QueueStatusComplete', ActionID: id, EventList: 'Complete', ListItems: answer.length });
    return text;
  }
}

/** Whether a client that asked for these event classes gets this event (manager.c: the event's Privilege classes). */
function wanted(classes: readonly string[], m: AmiMessage): boolean {
  if (classes.includes('on')) return true;
  if (classes.includes('off')) return false;
  const privilege = (m.Privilege ?? '').split(',');
  return privilege.some((c) => c !== 'all' && classes.includes(c));
}
