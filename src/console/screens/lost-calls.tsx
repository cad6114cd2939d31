import { Field } from '../components/form';
import { Table } from '../components/table';
import { Pager } from '../components/records';
import { ReportScreen } from '../reports/report-screen';
import { timezone } from '../session';
import { dateTime, duration, integer } from '../time';
import type { LostCalls, LostCallsRequest } from '../types';

type Lost = LostCalls['records'][number];

const OUTCOMES: Record<Lost['outcome'], string> = {
  abandon: 'Hung up',
  timeout: 'Timed out',
  keypress: 'Left by key press',
  empty: 'No agents',
};

/** How a lost caller was recovered, in words: "Called back by SIP/201 after 4:10", "Called in again after 12:00". */
function recoveryOf(r: Lost): string {
  const rec = r.recovery;
  if (!rec) return 'Not yet';
  return rec.how === 'calledBack'
    ? `Called back by ${rec.peerName} after ${duration(rec.afterSeconds)}`
    : `Called in again after ${duration(rec.afterSeconds)}`;
}

/**
 * Lost callers (POST /v2/reporting/queues/lost-calls, reporting.md R22): every caller who hung up, timed out, left by
 * a key press or met a queue without agents, with the number to call back, and whether an agent called back or
 * the caller called in again and was answered within the recovery window; per queue, how many were recovered and
 * how long it took. The list pages as the API does.
 */
export default function LostCallsScreen() {
  const zone = timezone.value;
  return (
    <ReportScreen<LostCallsRequest, LostCalls>
      id="lost"
      title="Lost callers"
      intro="Callers who hung up or were turned away, with their number, and whether anyone got back to them."
      path="/v2/reporting/queues/lost-calls"
      module="queue-lost-calls"
      rows={[]}
      fieldNames={['recoveryWindowHours']}
      more={(v) => ({ recoveryWindowHours: Number(v.recoveryWindowHours || 24), page: 1, recordsPerPage: 50 })}
      fields={(form) => (
        <fieldset>
          <legend>Recovery</legend>
          <Field
            form={form}
            name="recoveryWindowHours"
            label="Window (hours)"
            hint="A caller called back or answered on calling again within this many hours is recovered."
            type="number"
            min={1}
            max={168}
            defaultValue="24"
          />
        </fieldset>
      )}
    >
      {({ answer, what, again }) => (
        <>
          <Table
            caption={`Lost callers by queue, ${what}`}
            rows={answer.summary}
            rowKey={(s) => s.queueId}
            empty="No queue chosen."
            class="report-table"
            columns={[
              { key: 'queue', header: 'Queue', rowHeader: true, cell: (s) => s.queueName },
              { key: 'lost', header: 'Lost', numeric: true, cell: (s) => integer(s.lost) },
              { key: 'short', header: 'Short abandons', numeric: true, cell: (s) => integer(s.short) },
              { key: 'recovered', header: 'Recovered', numeric: true, cell: (s) => integer(s.recovered) },
              { key: 'back', header: 'Called back', numeric: true, cell: (s) => integer(s.recoveredCalledBack) },
              { key: 'in', header: 'Called in again', numeric: true, cell: (s) => integer(s.recoveredCalledIn) },
              { key: 'not', header: 'Not recovered', numeric: true, cell: (s) => integer(s.unrecovered) },
              {
                key: 'avg',
                header: 'Average time to recovery',
                numeric: true,
                cell: (s) => (s.avgRecoverySeconds === null ? '–' : duration(s.avgRecoverySeconds)),
              },
            ]}
          />
          <Table
            caption={`Lost callers, ${integer(answer.total)} in all (page ${answer.page} of ${answer.maxPage})`}
            rows={answer.records}
            rowKey={(r) => `${r.queueId} ${r.callId}`}
            empty="Nobody was lost in this range."
            class="report-table lost-calls"
            columns={[
              { key: 'when', header: 'Entered', rowHeader: true, cell: (r) => dateTime(r.enteredAt, zone) },
              { key: 'queue', header: 'Queue', cell: (r) => r.queueName },
              { key: 'caller', header: 'Caller', cell: (r) => r.callerIdNum || 'Anonymous' },
              { key: 'outcome', header: 'Outcome', cell: (r) => `${OUTCOMES[r.outcome]}${r.short ? ' (short)' : ''}` },
              { key: 'wait', header: 'Waited', numeric: true, cell: (r) => duration(r.waitTime) },
              { key: 'position', header: 'Position', numeric: true, cell: (r) => (r.position === null ? '–' : integer(r.position)) },
              { key: 'recovery', header: 'Recovery', cell: recoveryOf },
            ]}
          />
          {answer.maxPage > 1 && <Pager page={answer} label="lost callers" onPage={(n) => again({ page: n })} />}
        </>
      )}
    </ReportScreen>
  );
}
