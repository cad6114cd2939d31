import { registerFormat } from '../../validation/formats';

/**
 * The one catalogue of webhook event types (decisions.md §7): what a webhook's `type` may be, what
 * `GET /v2/webhooks/list-types` lists, and what delivery fires. Each description says what triggers the
 * event on this server.
 */
export const WEBHOOK_EVENT_TYPES = [
  {
    type: 'STARTCALL',
    description: 'A call started: a new call seen in imported or ingested PBX data (a CDR record or a queue_log ENTERQUEUE line).',
  },
  {
    type: 'ENDCALL',
    description: 'A call ended: sent with its CDR record once the record is imported or ingested.',
  },
  {
    type: 'INBOUNDSMS',
    description: 'An SMS arrived (a type of the hosted API, accepted for compatibility): this server has no SMS source and never fires it.',
  },
  {
    type: 'NEWVOICEMAIL',
    description: 'A call ended in voicemail: a CDR record whose last application is VoiceMail.',
  },
  {
    type: 'QUEUECALLABANDONED',
    description: 'A caller hung up while waiting in a queue: a queue_log ABANDON line.',
  },
  {
    type: 'QUEUEALERT',
    description:
      "A queue crossed one of its live alert thresholds (PUT /v2/queues/{queueId}/alerts: callers waiting, longest wait, today's service level, no agent available), as the PBX's AMI shows it.",
  },
  {
    type: 'QUEUEALERTCLEARED',
    description: 'A queue alert ended: the queue is back within that threshold.',
  },
  {
    type: 'REPORTSENT',
    description: 'A scheduled saved-filter report was e-mailed to its recipients.',
  },
  {
    type: 'REPORTFAILED',
    description: 'A scheduled saved-filter report could not be sent; the filter records the error.',
  },
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]['type'];

const TYPES: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES.map((t) => t.type));

export function isWebhookEventType(value: string): value is WebhookEventType {
  return TYPES.has(value);
}

/**
 * The schemas' `format: webhook-type` is this catalogue (validation knows no module, src/validation/formats.ts):
 * whatever validates webhook bodies registers it first, by calling this (buildDeps for the server, the seed).
 */
export function registerWebhookTypeFormat(): void {
  registerFormat('webhook-type', isWebhookEventType, `must be one of: ${WEBHOOK_EVENT_TYPES.map((t) => t.type).join(', ')}`);
}
