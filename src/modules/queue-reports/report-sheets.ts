import { field, instantOf, sheetOf, type Field } from '../../sheets/fields';
import type { Cell, Workbook } from '../../sheets/sheet';
import { isCalendar } from '../../time/report-rows';
import type { Distribution } from '../../time/report-range';
import type { AgentsResponse } from './agents.service';
import type { AgentAvailabilityRow, QueueStatsResponse } from './queue-reports';
import type { ServiceLevelResponse } from './service-level.service';

/**
 * Each queue report as a workbook (reporting.md R24): the columns are the JSON fields in their JSON order, a
 * nested object or list spread over columns of its own (`levels.30.serviceLevel`, `pauseTimes.Lunch`,
 * `recovery.at`); periods are labels, instants dates, numbers numbers. The same rows as the JSON, every page.
 */
export interface Range {
  startDate: string;
  endDate: string;
}

export const bookName = (report: string, r: Range) => [report, r.startDate, r.endDate].join('_');
export const num = <R>(key: keyof R & string): Field<R> => field(key, 'number', (r) => r[key] as Cell);
export const text = <R>(key: keyof R & string): Field<R> => field(key, 'text', (r) => r[key] as Cell);

type StatsRow = QueueStatsResponse['results'][number];
const STATS_FIGURES = [
  'totalInbound',
  'inboundAnswered',
  'answeredUnder30',
  'talkTime',
  'waitTime',
  'minWaitTime',
  'maxWaitTime',
  'ringTime',
  'abandons',
  'abandonsUnder10',
  'exitTimeout',
  'exitKeypress',
  'ringNoAnswer',
  'noAnswerRingTime',
  'outbound',
  'outboundTalkTime',
  'totalOutbound',
  'totalCallbacks',
  'successfulCallbacks',
  'failedCallbacks',
] as const satisfies readonly (keyof StatsRow)[];

export function statsWorkbook(res: QueueStatsResponse, body: Range & { distribution?: Distribution }): Workbook {
  const withStart = !isCalendar(body.distribution ?? 'totals');
  const fields: Field<StatsRow>[] = [
    num('queueId'),
    text('queueName'),
    field('date', 'label', (r) => r.date),
    ...(withStart ? [field<StatsRow>('start', 'instant', (r) => instantOf(r.start))] : []),
    text('distribution'),
    text('peerName'),
    ...STATS_FIGURES.map((k) => num<StatsRow>(k)),
  ];
  return { name: bookName('queue-stats', body), sheets: [sheetOf('Queue statistics', fields, [res.results])] };
}

/** The reasons seen in a report's rows, in code-point order (as the JSON lists them). */
const reasonsOf = (lists: readonly (readonly { offDutyReason: string }[])[]) =>
  [...new Set(lists.flatMap((l) => l.map((p) => p.offDutyReason)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const pauseOf = (list: readonly { offDutyReason: string; offDutyTime: number }[], reason: string) =>
  list.find((p) => p.offDutyReason === reason)?.offDutyTime ?? null;

export function availabilityWorkbook(rows: AgentAvailabilityRow[], body: Range & { queueId: number }): Workbook {
  const reasons = reasonsOf(rows.map((r) => r.offDutyTimes));
  const fields: Field<AgentAvailabilityRow>[] = [
    text('peerName'),
    text('name'),
    num('queueTalkTime'),
    num('nonQueueTalkTime'),
    num('totalUnavailableTime'),
    num('totalAvailableTime'),
    ...reasons.map((reason) => field<AgentAvailabilityRow>(`offDutyTimes.${reason}`, 'number', (r) => pauseOf(r.offDutyTimes, reason))),
    num('dndTimes'),
  ];
  return { name: bookName(`queue-agent-availability-${body.queueId}`, body), sheets: [sheetOf('Agent availability', fields, [rows])] };
}

type LevelRow = ServiceLevelResponse['results'][number];
const LEVEL_FIGURES = ['answeredWithin', 'abandonedWithin', 'serviceLevel', 'serviceLevel2', 'serviceLevelOffered'] as const;

export function serviceLevelWorkbook(res: ServiceLevelResponse, body: Range): Workbook {
  const seconds = [...new Set(res.results.flatMap((r) => r.levels.map((l) => l.seconds)))]; // in the order the rows list them
  const fields: Field<LevelRow>[] = [
    num('queueId'),
    text('queueName'),
    field('date', 'label', (r) => r.date),
    field('start', 'instant', (r) => instantOf(r.start)),
    text('distribution'),
    num('offered'),
    num('answered'),
    num('abandoned'),
    num('shortAbandons'),
    num('serviceLevelSeconds'),
    ...seconds.flatMap((s) =>
      LEVEL_FIGURES.map((f) => field<LevelRow>(`levels.${s}.${f}`, 'number', (r) => r.levels.find((l) => l.seconds === s)?.[f] ?? null)),
    ),
  ];
  return { name: bookName('queue-service-level', body), sheets: [sheetOf('Service level', fields, [res.results])] };
}

type AgentRow = AgentsResponse['results'][number];
const AGENT_FIGURES = [
  'answered',
  'agentHangups',
  'callerHangups',
  'transfers',
  'talkTime',
  'holdTime',
  'avgTalkTime',
  'avgHoldTime',
  'ringNoAnswer',
  'ringNoAnswerTime',
  'ringTime',
  'loginTime',
  'availableTime',
  'pausedTime',
] as const satisfies readonly (keyof AgentRow)[];

export function agentsWorkbook(res: AgentsResponse, body: Range): Workbook {
  const reasons = reasonsOf(res.results.map((r) => r.pauseTimes));
  const fields: Field<AgentRow>[] = [
    num('extId'),
    num('extNum'),
    text('name'),
    text('peerName'),
    num('queueId'),
    text('queueName'),
    field('date', 'label', (r) => r.date),
    field('start', 'instant', (r) => instantOf(r.start)),
    text('distribution'),
    ...AGENT_FIGURES.map((k) => num<AgentRow>(k)),
    ...reasons.map((reason) => field<AgentRow>(`pauseTimes.${reason}`, 'number', (r) => pauseOf(r.pauseTimes, reason))),
    num('occupancy'),
    num('outbound'),
    num('totalOutbound'),
    num('outboundTalkTime'),
    num('nonQueueTalkTime'),
  ];
  return { name: bookName('queue-agents', body), sheets: [sheetOf('Agents', fields, [res.results])] };
}
