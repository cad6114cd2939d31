import { useMemo } from 'preact/hooks';
import { Chart } from '../components/chart';
import { Table } from '../components/table';
import { DAY_HOUR_TOTAL, periodOf, ReportScreen } from '../reports/report-screen';
import { duration, integer, percent } from '../time';
import type { Agents, AgentsRequest } from '../types';

type Row = Agents['results'][number];

const agentName = (r: Row) => r.name || r.peerName;

/**
 * Agents (POST /v2/reporting/queues/agents, reporting.md R21): each agent's answered calls, hang-ups by side,
 * transfers, missed rings, talk and hold, login, available and paused time and occupancy, per queue and across
 * the chosen queues (its login time there is a union, not a sum). The chart draws each agent's answered calls
 * across the chosen queues.
 */
export default function AgentsScreen() {
  return (
    <ReportScreen<AgentsRequest, Agents>
      id="agents"
      title="Agents"
      intro="What each agent did: calls answered and missed, talk time, time logged in, available and paused."
      path="/v2/reporting/queues/agents"
      module="queue-agents"
      rows={[{ value: 'totals', label: 'Whole range' }, ...DAY_HOUR_TOTAL.filter((r) => r.value !== 'totals')]}
      rowsHint="By hour: a range of at most 31 days."
    >
      {({ answer, what }) => <AgentsReport answer={answer} what={what} />}
    </ReportScreen>
  );
}

function AgentsReport(props: { answer: Agents; what: string }) {
  const { answer } = props;
  const chart = useMemo(() => {
    const byAgent = new Map<string, number>();
    for (const r of answer.results) if (r.queueId === null) byAgent.set(agentName(r), (byAgent.get(agentName(r)) ?? 0) + r.answered);
    return {
      periods: [...byAgent.keys()],
      series: [{ label: 'Answered', values: [...byAgent.values()], kind: 'bar', colour: 1 }] as const,
    };
  }, [answer]);
  return (
    <>
      {chart.periods.length > 1 && (
        <Chart
          label="Calls each agent answered in the chosen queues over the range. Every figure is in the table below."
          periods={chart.periods}
          series={chart.series}
        />
      )}
      <Table<Row>
        caption={`Agents by queue, ${props.what}`}
        rows={answer.results}
        rowKey={(r) => `${r.peerName} ${r.queueId ?? 'all'} ${periodOf(r).key}`}
        empty="No agent was in these queues in this range."
        class="report-table"
        columns={[
          { key: 'agent', header: 'Agent', rowHeader: true, cell: agentName },
          { key: 'queue', header: 'Queue', cell: (r) => r.queueName ?? 'All chosen queues' },
          { key: 'period', header: 'Period', cell: (r) => r.date },
          { key: 'answered', header: 'Answered', numeric: true, cell: (r) => integer(r.answered) },
          { key: 'agentHangups', header: 'Agent hung up', numeric: true, cell: (r) => integer(r.agentHangups) },
          { key: 'callerHangups', header: 'Caller hung up', numeric: true, cell: (r) => integer(r.callerHangups) },
          { key: 'transfers', header: 'Transfers', numeric: true, cell: (r) => integer(r.transfers) },
          { key: 'missed', header: 'Missed rings', numeric: true, cell: (r) => integer(r.ringNoAnswer) },
          { key: 'talk', header: 'Talk time', numeric: true, cell: (r) => duration(r.talkTime) },
          { key: 'avgTalk', header: 'Average talk', numeric: true, cell: (r) => (r.avgTalkTime === null ? '–' : duration(r.avgTalkTime)) },
          { key: 'login', header: 'Logged in', numeric: true, cell: (r) => duration(r.loginTime) },
          { key: 'available', header: 'Available', numeric: true, cell: (r) => duration(r.availableTime) },
          { key: 'paused', header: 'Paused', numeric: true, cell: (r) => duration(r.pausedTime) },
          { key: 'occupancy', header: 'Occupancy', numeric: true, cell: (r) => percent(r.occupancy) },
          { key: 'outbound', header: 'Outbound answered', numeric: true, cell: (r) => integer(r.outbound) },
        ]}
      />
    </>
  );
}
