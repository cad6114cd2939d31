import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  parsed: ParsedMail;
}

export interface TestSmtp {
  /** smtp://127.0.0.1:PORT for TARS_SMTP_URL. */
  readonly url: string;
  /** While true, every RCPT TO is refused with 550. */
  refuse: boolean;
  readonly received: ReceivedMail[];
  /** Resolves with the next message (or one already waiting). */
  next(timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback: it speaks the protocol, parses each message with mailparser and keeps it.
 * `refuse` makes it reject every RCPT TO with 550, as a server refusing a recipient does.
 */
export async function startSmtp(opts: { refuse?: boolean } = {}): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const waiters: Array<(m: ReceivedMail) => void> = [];
  const state = { refuse: opts.refuse ?? false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, cb) {
      if (state.refuse) {
        const err = new Error(`mailbox ${address.address} unavailable`) as Error & { responseCode: number };
        err.responseCode = 550;
        cb(err);
        return;
      }
      cb();
    },
    onData(stream, session, cb) {
      simpleParser(stream)
        .then((parsed) => {
          const mail = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            parsed,
          };
          const waiter = waiters.shift();
          if (waiter) waiter(mail);
          else received.push(mail);
          cb();
        })
        .catch(cb);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    get refuse() {
      return state.refuse;
    },
    set refuse(v: boolean) {
      state.refuse = v;
    },
    received,
    next(timeoutMs = 5000) {
      const waiting = received.shift();
      if (waiting) return Promise.resolve(waiting);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no e-mail arrived')), timeoutMs);
        waiters.push((m) => {
          clearTimeout(timer);
          resolve(m);
        });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
