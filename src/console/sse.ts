import { createParser } from 'eventsource-parser';

export type StreamState = 'connecting' | 'open' | 'retrying' | 'refused';

export interface StreamHandlers {
  /** One event of the stream: its name (`state`, `queue`) and its data, as sent. */
  onEvent(event: string, data: string): void;
  /** The connection's state; `refused` (401, 403, 404) is final, with the server's message. */
  onState(state: StreamState, message?: string): void;
}

/** A stream that says nothing for this long (heartbeats come every 15 s) is taken as dead and opened again. */
const SILENCE_MS = 40_000;
const MAX_RETRY_MS = 30_000;

/**
 * Server-Sent Events over fetch (eventsource-parser reads the format): unlike EventSource it can send an
 * Authorization header (a wallboard link's token) and notice a silent, half-open connection. It reconnects by
 * itself, with the server's `retry:` (doubled up to 30 s while it keeps failing), and resumes with Last-Event-ID.
 * Returns the function that closes it for good.
 */
export function openStream(url: string, headers: Record<string, string>, handlers: StreamHandlers): () => void {
  let closed = false;
  let lastId: string | undefined;
  let retryMs = 2000;
  let failures = 0;
  let controller: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const connect = async (): Promise<void> => {
    if (closed) return;
    controller = new AbortController();
    const ctrl = controller;
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const alive = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => ctrl.abort(), SILENCE_MS);
    };
    handlers.onState(failures === 0 ? 'connecting' : 'retrying');
    try {
      const res = await fetch(url, {
        headers: { accept: 'text/event-stream', ...headers, ...(lastId ? { 'last-event-id': lastId } : {}) },
        credentials: 'same-origin',
        cache: 'no-store',
        signal: ctrl.signal,
      });
      if ([401, 403, 404].includes(res.status)) {
        const body = (await res.json().catch(() => ({}))) as { message?: string };
        closed = true;
        handlers.onState('refused', body.message ?? `The server answered ${res.status}`);
        return;
      }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      const parser = createParser({
        onEvent: (e) => {
          if (e.id) lastId = e.id;
          handlers.onEvent(e.event ?? 'message', e.data);
        },
        onRetry: (ms) => (retryMs = ms),
      });
      failures = 0;
      handlers.onState('open');
      alive();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        alive();
        parser.feed(value);
      }
    } catch {
      // a dropped connection, a silent one aborted, a server restarting: try again below
    } finally {
      clearTimeout(watchdog);
    }
    if (closed) return;
    failures++;
    handlers.onState('retrying');
    timer = setTimeout(() => void connect(), Math.min(MAX_RETRY_MS, retryMs * 2 ** Math.max(0, failures - 1)));
  };
  void connect();
  return () => {
    closed = true;
    clearTimeout(timer);
    controller?.abort();
  };
}
