import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { AmiParser, formatAction, type AmiMessage } from '../../src/modules/live-queues/ami-protocol';
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
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  /** Index into transcript.checkpoints of the snapshot a QueueStatus gets now. */
  private checkpoint = 0;
  /** How many of transcript.events have been sent. */
  private sent: number;
  /** Refusing connections (goDown). */
  private down = false;
  /** What the peer answers an action other than Login, QueueStatus and Ping; undefined: Success. */
  answer: (action: AmiMessage) => Record<string, string> | undefined = () => undefined;

  constructor(private readonly transcript: Transcript) {
    this.sent = transcript.checkpoints[0]?.after ?? 0;
  }

  async listen(): Promise<number> {
    this.server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    const port = (this.server?.address() as AddressInfo).port;
    return `ami://${AMI_USER.username}:${AMI_USER.secret}@127.0.0.1:${port}`;
  }

  /** Sends the recorded events up to checkpoint `index` to every logged-in client; QueueStatus then answers with that checkpoint. */
  playTo(index: number): void {
    const target = this.transcript.checkpoints[index];
    if (!target) throw new Error(`no checkpoint ${index}`);
    let text = '';
    for (; this.sent < target.after; this.sent++) text += this.transcript.events[this.sent]?.text ?? '';
    for (const s of this.sockets) s.write(text);
    this.checkpoint = index;
  }

  /** Writes raw bytes to every logged-in client (a half message, a message of no queue of the site). */
  write(text: string): void {
    for (const s of this.sockets) s.write(text);
  }

  /** Drops every connection, as a PBX that restarts would. */
  dropAll(): void {
    for (const s of this.sockets) s.destroy();
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
          if (loggedIn) this.sockets.add(socket);
          else socket.end();
        } else if (!loggedIn) {
          socket.write(formatAction({ Response: 'Error', ActionID: id, Message: 'Permission denied' }));
        } else if (action.Action === 'QueueStatus') {
          socket.write(this.queueStatus(id));
        } else if (action.Action === 'Ping') {
          socket.write(formatAction({ Response: 'Success', ActionID: id, Ping: 'Pong', Timestamp: '0' }));
        } else {
          socket.write(formatAction({ ...(this.answer(action) ?? { Response: 'Success' }), ActionID: id }));
        }
      }
    });
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
