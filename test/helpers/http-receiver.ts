import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How to answer a request: a status code, or 'hang' to never answer. */
export type Answer = number | 'hang';

export interface HttpReceiver {
  url: string;
  readonly port: number;
  readonly requests: ReceivedRequest[];
  /** The status every request is answered with (changeable during a test), unless `respond` is set. */
  status: number;
  respond: ((req: ReceivedRequest) => Answer) | undefined;
  /** Stops listening (connections refused) until start() again, on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP server on loopback that records what it receives (SMS gateway, webhook subscriber). */
export async function startReceiver(status = 200): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  let server: Server | undefined;
  let port = 0;
  const receiver: HttpReceiver = {
    url: '',
    get port() {
      return port;
    },
    requests,
    status,
    respond: undefined,
    async start() {
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const r = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
          requests.push(r);
          const answer = receiver.respond ? receiver.respond(r) : receiver.status;
          if (answer !== 'hang') res.writeHead(answer, { 'content-type': 'application/json' }).end('{}');
        });
      });
      await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', resolve));
      port = (s.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${port}`;
      server = s;
    },
    async stop() {
      const s = server;
      server = undefined;
      if (!s) return;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
    },
    close() {
      return receiver.stop();
    },
  };
  await receiver.start();
  return receiver;
}
