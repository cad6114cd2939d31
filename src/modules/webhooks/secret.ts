import { randomBytes } from 'node:crypto';

/** A Standard Webhooks signing secret: "whsec_" + base64 of 32 random bytes (decisions.md §7). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
