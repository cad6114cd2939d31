import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { createApp } from '../../src/app';
import type { Clock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import type { AppDeps } from '../../src/deps';
import { silentLogger, type Logger } from '../../src/log';
import type { LiveStreamOptions } from '../../src/modules/live-queues/live-stream';
import { buildDeps } from '../../src/runtime';
import { forgetTestDatabase, testDatabaseEnv } from './engine';

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is, with `contentType` (default application/json). */
  raw?: string;
  contentType?: string;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
}

export interface TestApp {
  readonly url: string;
  readonly deps: AppDeps;
  readonly dataDir: string;
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<TestResponse<T>>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Reuse this data directory (a restart); it is then left in place on close. */
  dataDir?: string;
  clock?: Clock;
  log?: Logger;
  /** The live stream's limits (src/app.ts AppOptions). */
  liveStreams?: LiveStreamOptions;
}

/** A clock the test moves by hand. */
export class TestClock {
  constructor(public ms = Date.UTC(2026, 10, 22, 12, 0, 0)) {}
  now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/**
 * A fresh data directory with a migrated SQLite file (with TARS_TEST_ENGINE=postgres: a fresh PostgreSQL
 * database copied from the migrated template, the same one again for the same `dataDir`, dropped on close),
 * the real app on a loopback port, and a small fetch client. Responses are checked against their schemas
 * (checkResponses), so every API test also checks the JSON types of what it gets back.
 */
export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'tars-test-'));
  // The PBX's zone is UTC unless a test says otherwise: the machine running the tests may be anywhere.
  const config = loadConfig(
    { TARS_LOG_LEVEL: 'silent', TARS_PBX_TIMEZONE: 'UTC', ...(await testDatabaseEnv(dataDir)), ...opts.env },
    { 'data-dir': dataDir, host: '127.0.0.1', port: '0' },
  );
  const deps = await buildDeps(config, opts.log ?? silentLogger, opts.clock);
  const app = createApp(deps, { checkResponses: true, liveStreams: opts.liveStreams });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    deps,
    dataDir,
    request: (method, path, o = {}) => send(url, method, path, o),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      deps.live.stop();
      deps.mailer.close();
      await deps.database.close();
      if (!opts.dataDir) {
        rmSync(dataDir, { recursive: true, force: true });
        await forgetTestDatabase(dataDir);
      }
    },
  };
}

export async function send<T = any>(base: string, method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse<T>> {
  const url = new URL(base + path);
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.append(k, String(v));
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let payload: string | undefined;
  if (opts.raw !== undefined) payload = opts.raw;
  else if (opts.body !== undefined) payload = JSON.stringify(opts.body);
  if (payload !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
  const res = await fetch(url, { method, headers, body: payload });
  // A stream (the live queues) never ends by itself: its status and headers are the answer; test/helpers/sse.ts reads one.
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, headers: res.headers, body: undefined as T, text: '' };
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body: body as T, text };
}
