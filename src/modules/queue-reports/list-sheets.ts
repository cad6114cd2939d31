import { field, instantOf, sheetOf, type Field } from '../../sheets/fields';
import type { Cell, Workbook } from '../../sheets/sheet';
import type { AgentSessions } from './agent-sessions.service';
import type { LostCall, lostCalls } from './lost-calls.service';
import { bookName, num, text, type Range } from './report-sheets';

/** The list reports as workbooks (reporting.md R24): lost calls (streamed, with a summary sheet) and agent sessions. */

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
