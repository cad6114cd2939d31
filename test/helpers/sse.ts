import { request, type IncomingMessage } from 'node:http';
import { until } from './until';

/** One Server-Sent Event as a client reads it. */
export interface SseEvent {
  readonly id: string;
  readonly event: string;
  readonly data: any;
}

/**
 * A Server-Sent Events client over a plain HTTP request (what a wallboard's EventSource does, with a bearer
 * token): it collects the events as they come, parsed per the HTML standard's event-stream rules (fields
 * `id`, `event`, `data`, comments starting with `:`, an event ending at a blank line).
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  comments = 0;
  status = 0;
  bytes = 0;
  private res: IncomingMessage | undefined;
  private closed = false;

  private constructor() {}

  /** `token` undefined: no Authorization header (a console's stream, by its session cookie in `headers`). */
  static async open(url: string, token: string | undefined, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    const auth: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
    await new Promise<void>((resolve, reject) => {
      const req = request(url, { headers: { ...auth, accept: 'text/event-stream', ...headers } }, (res) => {
        client.res = res;
        client.status = res.statusCode ?? 0;
        res.setEncoding('utf8');
        let pending = '';
        res.on('data', (chunk: string) => {
          client.bytes += Buffer.byteLength(chunk);
          pending += chunk;
          let end: number;
          while ((end = pending.indexOf('\n\n')) >= 0) {
            client.read(pending.slice(0, end));
            pending = pending.slice(end + 2);
          }
        });
        res.on('close', () => (client.closed = true));
        resolve();
      });
      req.on('error', reject);
      req.end();
    });
    return client;
  }

  private read(block: string): void {
    const fields: Record<string, string> = {};
    let onlyComments = true;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      onlyComments = false;
      const colon = line.indexOf(':');
      const key = colon < 0 ? line : line.slice(0, colon);
      fields[key] = (fields[key] === undefined || key !== 'data' ? '' : `${fields[key]}\n`) + line.slice(colon + 1).replace(/^ /, '');
    }
    if (onlyComments) {
      this.comments++;
      return;
    }
    if (fields.data === undefined) return; // retry: and the like
    this.events.push({ id: fields.id ?? '', event: fields.event ?? 'message', data: JSON.parse(fields.data) });
  }

  get ended(): boolean {
    return this.closed;
  }

  /** Waits for the `n`th event (1-based) and returns it. */
  nth(n: number, ms = 15_000): Promise<SseEvent> {
    return until(() => this.events[n - 1], { what: `event ${n}`, ms });
  }

  close(): void {
    this.res?.destroy();
  }
}
