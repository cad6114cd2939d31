import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { signatureHeaders } from './signing';
import type { UrlPolicy } from '../../net/url-policy';

export interface Target {
  url: string;
  username: string | null;
  password: string | null;
  authtoken: string | null;
  /** The current signing secret, then the previous one while a rotation's grace period lasts. */
  secrets: readonly string[];
}

/** What one attempt came to: an HTTP status, or an error before any status (refused, timeout, policy). */
export interface AttemptResult {
  statusCode: number | null;
  error: string | null;
  /** Not attempted and never will be as things stand (invalid URL, destination refused by policy): final. */
  refused?: boolean;
}

/**
 * One delivery attempt: POST the JSON body with Basic auth (username/password) or a Bearer token
 * (authtoken only), signed per Standard Webhooks, within `timeoutMs`, redirects not followed. The
 * destination is checked against the operator's policy for every address the host resolves to, at
 * connection time.
 */
export function deliverOnce(
  target: Target,
  messageId: string,
  body: string,
  nowSeconds: number,
  policy: UrlPolicy,
  timeoutMs: number,
): Promise<AttemptResult> {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return Promise.resolve({ statusCode: null, error: 'the webhook URL is not valid', refused: true });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return Promise.resolve({ statusCode: null, error: 'the webhook URL must be http or https', refused: true });
  const hostDenied = policy.denied(url.hostname);
  if (hostDenied) return Promise.resolve({ statusCode: null, error: hostDenied, refused: true });

  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': 'TARS-Webhooks/1',
    ...signatureHeaders(target.secrets, messageId, nowSeconds, body),
  };
  if (target.username !== null && target.password !== null) {
    headers.authorization = `Basic ${Buffer.from(`${target.username}:${target.password}`).toString('base64')}`;
  } else if (target.authtoken) {
    headers.authorization = `Bearer ${target.authtoken}`;
  }

  const guardedLookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      const refused = list.map((a) => policy.denied(hostname, a.address)).find((r) => r !== null);
      if (refused) return callback(Object.assign(new Error(refused), { code: 'EPOLICY' }), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };

  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = client.request(url, { method: 'POST', headers, lookup: guardedLookup, timeout: timeoutMs }, (res) => {
      res.resume(); // the body does not matter; read it so the socket can be reused
      res.on('end', () => resolve({ statusCode: res.statusCode ?? null, error: null }));
      res.on('error', () => resolve({ statusCode: res.statusCode ?? null, error: null }));
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(
        err.code === 'EPOLICY'
          ? { statusCode: null, error: err.message, refused: true }
          : { statusCode: null, error: `${err.code ?? 'error'}: ${err.message}` },
      ),
    );
    req.on('close', () => clearTimeout(timer));
    req.end(body);
  });
}
