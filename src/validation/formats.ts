import { fullFormats } from 'ajv-formats/dist/formats';
import { isWebhookEventType, WEBHOOK_EVENT_TYPES } from '../modules/webhooks/event-types';

/**
 * The string formats the schemas use: ajv-formats' own and two of ours. The compiled validators
 * (scripts/gen-validators.ts) call these functions by name, so this module is their run-time half.
 */
export const FORMATS = {
  ...fullFormats,
  'iana-timezone': { type: 'string', validate: isTimezone },
  // The webhook event types live in one catalogue (src/modules/webhooks/event-types.ts), not in a schema enum.
  'webhook-type': { type: 'string', validate: isWebhookEventType },
} as const;

/** Formats of our own, with the sentence a failure gets. */
export const FORMAT_MESSAGES: Readonly<Record<string, string>> = {
  'iana-timezone': 'must be an IANA timezone name such as Europe/Paris',
  email: 'must be an e-mail address',
  'date-time': 'must be an ISO 8601 timestamp',
  uri: 'must be an absolute URL',
  'webhook-type': `must be one of: ${WEBHOOK_EVENT_TYPES.map((t) => t.type).join(', ')}`,
};

// Made on first use: listing the zones takes milliseconds the start does not need.
let ianaTimezones: ReadonlySet<string> | undefined;

export function isTimezone(name: string): boolean {
  ianaTimezones ??= new Set(['UTC', ...Intl.supportedValuesOf('timeZone')]);
  return ianaTimezones.has(name) || isKnownZone(name);
}

function isKnownZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return /^[A-Za-z]+(?:[/_+-][A-Za-z0-9_+-]+)*$/.test(name);
  } catch {
    return false;
  }
}
