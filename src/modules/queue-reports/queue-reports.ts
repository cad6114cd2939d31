import type { SchemaTypes } from '../../validation/schema-types';
import type { QueueRow } from '../queues/queues.repository';
import type { Distribution } from '../../time/report-range';
import type { Sums } from './spans';

/** A queue statistics result (api.md §2.9), fields in the order of the expected reports. */
export type QueueStatsRow = SchemaTypes['queue-stats']['results'][number];

export type QueueStatsResponse = SchemaTypes['queue-stats'];

/** An agent availability result (api.md §2.10). */
export type AgentAvailabilityRow = SchemaTypes['agent-availability'][number];

/**
 * A stats row; `start` (R20) only for the distributions that are additions, after `date`: the hosted API's rows stay
 * exactly as they were.
 */
const n = (v: number | null) => v ?? 0;

export function toStatsRow(queue: QueueRow, date: string, distribution: Distribution, s: Sums, start?: string | null): QueueStatsRow {
  return {
    queueId: queue.id,
    queueName: queue.name,
    date,
    ...(start === undefined ? {} : { start }),
    distribution,
    peerName: '',
    totalInbound: n(s.inbound),
    inboundAnswered: n(s.answered),
    answeredUnder30: n(s.under30),
    talkTime: n(s.talk),
    waitTime: n(s.wait_sum),
    minWaitTime: n(s.wait_min),
    maxWaitTime: n(s.wait_max),
    ringTime: n(s.ring),
    abandons: n(s.abandons),
    abandonsUnder10: n(s.abandons_u10),
    exitTimeout: n(s.exit_timeout),
    exitKeypress: n(s.exit_key),
    ringNoAnswer: n(s.rna),
    noAnswerRingTime: n(s.rna_ms) / 1000, // milliseconds summed first, divided once (R5)
    outbound: s.outbound,
    outboundTalkTime: s.outboundTalk,
    totalOutbound: s.outboundTotal,
    totalCallbacks: n(s.cb_req),
    successfulCallbacks: n(s.cb_ok),
    failedCallbacks: n(s.cb_fail),
  };
}

/** Code-point order (R11), not locale order: UTF-8 bytes sort the way code points do. */
export function codePointOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export interface AgentFigures {
  peer: string;
  name: string;
  /** Membership seconds in the range. */
  memberTime: number;
  /** Paused seconds by reason. */
  pauses: readonly { reason: string; time: number }[];
  queueTalk: number;
  otherTalk: number;
}

/** R11: reasons with time, "" shown as "Paused", sorted; available = member − paused. */
export function toAvailabilityRow(f: AgentFigures): AgentAvailabilityRow {
  const paused = f.pauses.filter((p) => p.time > 0);
  const unavailable = paused.reduce((sum, p) => sum + p.time, 0);
  return {
    peerName: f.peer,
    name: f.name,
    queueTalkTime: f.queueTalk,
    nonQueueTalkTime: f.otherTalk,
    totalUnavailableTime: unavailable,
    totalAvailableTime: f.memberTime - unavailable,
    offDutyTimes: paused
      .map((p) => ({ offDutyReason: p.reason === '' ? 'Paused' : p.reason, offDutyTime: p.time }))
      .sort((a, b) => codePointOrder(a.offDutyReason, b.offDutyReason)),
    dndTimes: paused.filter((p) => p.reason === 'DND').reduce((sum, p) => sum + p.time, 0),
  };
}
