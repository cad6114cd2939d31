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

export function signatureHeaders(secret: string, messageId: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': sign(secret, messageId, timestampSeconds, body),
  };
}
