import { send, type RequestOptions, type TestResponse } from './app';

/** One request the recording client sent, with its answer as text. */
export interface Exchange {
  method: string;
  path: string;
  status: number;
  text: string;
  body: unknown;
}

/**
 * A client that keeps every exchange and every token the server issued (access tokens, MFA challenge
 * tokens): what the secrets test then looks for in the log and in the other responses.
 */
export class RecordingClient {
  readonly exchanges: Exchange[] = [];
  readonly tokens = new Set<string>();

  constructor(private readonly url: string) {}

  async call<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse<T>> {
    const res = await send<T>(this.url, method, path, opts);
    this.exchanges.push({ method, path, status: res.status, text: res.text, body: res.body });
    const body = res.body as { accessToken?: unknown; mfaVerifyToken?: unknown } | undefined;
    for (const t of [body?.accessToken, body?.mfaVerifyToken]) if (typeof t === 'string') this.tokens.add(t);
    return res;
  }
}

/** The labels of the secrets that occur in `text` (each secret must be at least 6 characters: no chance hits). */
export function secretsIn(text: string, secrets: ReadonlyMap<string, string>): string[] {
  for (const [label, value] of secrets) if (value.length < 6) throw new Error(`secret ${label} is too short to look for`);
  return [...secrets].filter(([, value]) => text.includes(value)).map(([label]) => label);
}

/** Every value of a key named `key` anywhere in a JSON value. */
export function valuesOf(json: unknown, key: string): unknown[] {
  if (Array.isArray(json)) return json.flatMap((v) => valuesOf(v, key));
  if (json === null || typeof json !== 'object') return [];
  return Object.entries(json).flatMap(([k, v]) => [...(k === key ? [v] : []), ...valuesOf(v, key)]);
}
