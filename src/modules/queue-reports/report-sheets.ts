import { field, instantOf, sheetOf, type Field } from '../../sheets/fields';
import type { Cell, Workbook } from '../../sheets/sheet';
import { isCalendar } from '../../time/report-rows';
import type { Distribution } from '../../time/report-range';
import type { AgentsResponse } from './agents.service';
import type { AgentSessions } from './agent-sessions.service';
import type { LostCall, lostCalls } from './lost-calls.service';
import type { AgentAvailabilityRow, QueueStatsResponse } from './queue-reports';
import type { ServiceLevelResponse } from './service-level.service';

/**
 * Each queue report as a workbook (reporting.md R24): the columns are the JSON fields in their JSON order, a
 * nested object or list spread over columns of its own (`levels.30.serviceLevel`, `pauseTimes.Lunch`,
 * `recovery.at`); periods are labels, instants dates, numbers numbers. The same rows as the JSON, every page.
 */
interface Range {
  startDate: string;
  endDate: string;
}

const bookName = (report: string, r: Range) => [report, r.startDate, r.endDate].join('_');
const num = <R>(key: keyof R & string): Field<R> => field(key, 'number', (r) => r[key] as Cell);
const text = <R>(key: keyof R & string): Field<R> => field(key, 'text', (r) => r[key] as Cell);

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

type Recovered = Record<string, unknown>;
const recovery = (key: string, kind: 'text' | 'number' | 'instant'): Field<LostCall> =>
  field(`recovery.${key}`, kind, (r) => {
    const v = (r.recovery as Recovered | null)?.[key] as Cell | undefined;
    return kind === 'instant' ? instantOf(v as string | undefined) : v;
  });

/** Lost calls: every one of the range, streamed a day at a time; the XLSX also has the summary on a sheet of its own. */
export function lostCallsWorkbook(report: Awaited<ReturnType<typeof lostCalls>>, body: Range): Workbook {
  const fields: Field<LostCall>[] = [
    num('queueId'),
    text('queueName'),
    text('callId'),
    text('callerIdNum'),
    field('enteredAt', 'instant', (r) => instantOf(r.enteredAt)),
    field('leftAt', 'instant', (r) => instantOf(r.leftAt)),
    text('outcome'),
    num('waitTime'),
    num('position'),
    num('originalPosition'),
    field('short', 'boolean', (r) => r.short),
    recovery('how', 'text'),
    recovery('at', 'instant'),
    recovery('afterSeconds', 'number'),
    recovery('peerName', 'text'),
    recovery('extId', 'number'),
    recovery('queueId', 'number'),
    recovery('callId', 'text'),
  ];
  type Summary = ReturnType<typeof report.summary>[number];
  const summary: Field<Summary>[] = [
    num('queueId'),
    text('queueName'),
    ...(['lost', 'short', 'recovered', 'recoveredCalledBack', 'recoveredCalledIn', 'unrecovered', 'avgRecoverySeconds'] as const).map((k) =>
      num<Summary>(k),
    ),
  ];
  const afterAll = {
    *[Symbol.iterator]() {
      yield report.summary();
    },
  }; // read once every lost call was written
  return {
    name: bookName('queue-lost-calls', body),
    sheets: [sheetOf('Lost calls', fields, report.batches), sheetOf('Summary', summary, afterAll)],
  };
}

interface SessionLine {
  pair: AgentSessions[number];
  kind: 'session' | 'pause';
  start: string;
  end: string | null;
  seconds: number;
  reason: string | null;
}

/** Agent sessions: one row per interval, its kind a column. */
export function agentSessionsWorkbook(pairs: AgentSessions, body: Range): Workbook {
  const lines: SessionLine[] = pairs.flatMap((pair) => [
    ...pair.sessions.map((s) => ({ pair, kind: 'session' as const, ...s, reason: null })),
    ...pair.pauses.map((s) => ({ pair, kind: 'pause' as const, ...s })),
  ]);
  const fields: Field<SessionLine>[] = [
    field('extId', 'number', (l) => l.pair.extId),
    field('peerName', 'text', (l) => l.pair.peerName),
    field('name', 'text', (l) => l.pair.name),
    field('queueId', 'number', (l) => l.pair.queueId),
    field('queueName', 'text', (l) => l.pair.queueName),
    field('kind', 'text', (l) => l.kind),
    field('start', 'instant', (l) => instantOf(l.start)),
    field('end', 'instant', (l) => instantOf(l.end)),
    field('seconds', 'number', (l) => l.seconds),
    field('reason', 'text', (l) => l.reason),
  ];
  return { name: bookName('queue-agent-sessions', body), sheets: [sheetOf('Agent sessions', fields, [lines])] };
}
