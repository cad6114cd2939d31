import { useMemo } from 'preact/hooks';
import { Chart } from '../components/chart';
import { Table } from '../components/table';
import { DAY_HOUR_TOTAL, periodOf, ReportScreen, sumsByPeriod } from '../reports/report-screen';
import { duration, integer } from '../time';
import type { QueueStats, QueueStatsRequest } from '../types';

/**
 * Queue statistics (POST /v2/reporting/queues/stats): offered, answered, abandoned and the rest, by day, by hour or
 * for the whole range. The chart sums the chosen queues per period; the table has every queue's row as the API
 * answered it.
 */
export default function QueueStatsScreen() {
  return (
    <ReportScreen<QueueStatsRequest, QueueStats>
      id="stats"
      title="Queue statistics"
      intro="Calls offered to each queue, answered, abandoned and how long callers waited."
      path="/v2/reporting/queues/stats"
      module="queue-stats"
      rows={DAY_HOUR_TOTAL}
      rowsHint="By hour: a range of at most 31 days."
    >
      {({ asked, answer, what }) => <StatsReport asked={asked} answer={answer} what={what} />}
    </ReportScreen>
  );
}

function StatsReport(props: { asked: QueueStatsRequest; answer: QueueStats; what: string }) {
  const { asked, answer } = props;
  const chart = useMemo(() => sumsByPeriod(answer.results, [(r) => r.totalInbound, (r) => r.inboundAnswered, (r) => r.abandons]), [answer]);
  const series = useMemo(
    () =>
      [
        { label: 'Offered', values: chart.sums[0] ?? [], kind: 'bar', colour: 1 },
        { label: 'Answered', values: chart.sums[1] ?? [], kind: 'line', colour: 2 },
        { label: 'Abandoned', values: chart.sums[2] ?? [], kind: 'line', colour: 3 },
      ] as const,
    [chart],
  );
  return (
    <>
      {chart.periods.length > 1 && (
        <Chart
          label={`Offered, answered and abandoned calls of the chosen queues together, ${asked.distribution === 'hourly' ? 'by hour' : 'by day'}. Every figure is in the table below, queue by queue.`}
          periods={chart.periods}
          series={series}
        />
      )}
      <Table
        caption={`Statistics by queue, ${props.what}`}
        rows={answer.results}
        rowKey={(r) => `${r.queueId} ${periodOf(r).key}`}
        empty="No calls in this range."
        class="report-table"
        columns={[
          { key: 'queue', header: 'Queue', rowHeader: true, cell: (r) => r.queueName },
          { key: 'period', header: asked.distribution === 'totals' ? 'From' : 'Period', cell: (r) => r.date },
          { key: 'offered', header: 'Offered', numeric: true, cell: (r) => integer(r.totalInbound) },
          { key: 'answered', header: 'Answered', numeric: true, cell: (r) => integer(r.inboundAnswered) },
          { key: 'under30', header: 'Answered within 30 s', numeric: true, cell: (r) => integer(r.answeredUnder30) },
          { key: 'abandoned', header: 'Abandoned', numeric: true, cell: (r) => integer(r.abandons) },
          { key: 'short', header: 'Abandoned within 10 s', numeric: true, cell: (r) => integer(r.abandonsUnder10) },
          { key: 'timeout', header: 'Timed out', numeric: true, cell: (r) => integer(r.exitTimeout) },
          { key: 'keypress', header: 'Left by key press', numeric: true, cell: (r) => integer(r.exitKeypress) },
          { key: 'talk', header: 'Talk time', numeric: true, cell: (r) => duration(r.talkTime) },
          { key: 'wait', header: 'Wait time', numeric: true, cell: (r) => duration(r.waitTime) },
          { key: 'maxWait', header: 'Longest wait', numeric: true, cell: (r) => duration(r.maxWaitTime) },
        ]}
      />
    </>
  );
}
