import { useMemo } from 'preact/hooks';
import { Chart } from '../components/chart';
import { Table } from '../components/table';
import { ReportScreen } from '../reports/report-screen';
import { duration } from '../time';
import type { AgentAvailability, AgentAvailabilityRequest } from '../types';

type Agent = AgentAvailability[number];

/**
 * Agent availability (POST /v2/reporting/queues/agent-availability, the hosted API's, api.md §4.3): for one queue
 * over the range, each member's talk time in and outside queues, available and unavailable time, off-duty time by
 * pause reason and DND time. The chart stacks nothing: available and unavailable hours side by side per agent.
 */
export default function AgentAvailabilityScreen() {
  return (
    <ReportScreen<AgentAvailabilityRequest, AgentAvailability>
      id="availability"
      title="Agent availability"
      intro="For one queue: how long each member was available, unavailable, off duty by reason, and on calls."
      path="/v2/reporting/queues/agent-availability"
      module="queue-agent-availability"
      rows={[]}
      oneQueue
    >
      {({ answer, what }) => <AvailabilityReport answer={answer} what={what} />}
    </ReportScreen>
  );
}

const nameOf = (a: Agent) => a.name || a.peerName;
const hours = (seconds: number) => Math.round((seconds / 3600) * 100) / 100;

function AvailabilityReport(props: { answer: AgentAvailability; what: string }) {
  const { answer } = props;
  const chart = useMemo(
    () => ({
      periods: answer.map(nameOf),
      series: [
        { label: 'Available (hours)', values: answer.map((a) => hours(a.totalAvailableTime)), kind: 'line', colour: 2 },
        { label: 'Unavailable (hours)', values: answer.map((a) => hours(a.totalUnavailableTime)), kind: 'line', colour: 3 },
      ] as const,
    }),
    [answer],
  );
  const reasons = [...new Set(answer.flatMap((a) => a.offDutyTimes.map((o) => o.offDutyReason)))];
  return (
    <>
      {chart.periods.length > 1 && (
        <Chart
          label="Each agent's available and unavailable time, in hours. Every figure is in the table below, to the second."
          periods={chart.periods}
          series={chart.series}
        />
      )}
      <Table<Agent>
        caption={`Agent availability, ${props.what}`}
        rows={answer}
        rowKey={(a) => a.peerName}
        empty="No agent was a member of this queue in this range."
        class="report-table"
        columns={[
          { key: 'agent', header: 'Agent', rowHeader: true, cell: nameOf },
          { key: 'available', header: 'Available', numeric: true, cell: (a) => duration(a.totalAvailableTime) },
          { key: 'unavailable', header: 'Unavailable', numeric: true, cell: (a) => duration(a.totalUnavailableTime) },
          { key: 'queueTalk', header: 'Talk in queues', numeric: true, cell: (a) => duration(a.queueTalkTime) },
          { key: 'otherTalk', header: 'Talk outside queues', numeric: true, cell: (a) => duration(a.nonQueueTalkTime) },
          { key: 'dnd', header: 'DND', numeric: true, cell: (a) => duration(a.dndTimes) },
          ...reasons.map((reason) => ({
            key: `off-${reason}`,
            header: `Off duty: ${reason || 'Paused'}`,
            numeric: true,
            cell: (a: Agent) => duration(a.offDutyTimes.find((o) => o.offDutyReason === reason)?.offDutyTime ?? 0),
          })),
        ]}
      />
    </>
  );
}
