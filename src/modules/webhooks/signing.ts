import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signatures (decisions.md §7; https://www.standardwebhooks.com): the secret is
 * "whsec_" + base64 of the key; the signature is base64(HMAC-SHA256(key, "<id>.<timestamp>.<body>")),
 * sent as "v1,<signature>". Receivers verify with any Standard Webhooks library (the README shows the
 * `standardwebhooks` npm package).
 */
export function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/**
 * The three headers. With more than one secret (during a rotation) the signature header carries one
 * signature per secret, space-separated, as the specification allows: a receiver with either secret verifies.
 */
export function signatureHeaders(
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => sign(s, messageId, timestampSeconds, body)).join(' '),
  };
}
