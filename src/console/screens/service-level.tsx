import { useMemo } from 'preact/hooks';
import { Chart, type ChartSeries } from '../components/chart';
import { Field } from '../components/form';
import { Table } from '../components/table';
import { DAY_HOUR_TOTAL, periodOf, ReportScreen } from '../reports/report-screen';
import { integer, percent } from '../time';
import type { ServiceLevel, ServiceLevelRequest } from '../types';

type Row = ServiceLevel['results'][number];
type Level = Row['levels'][number];

/**
 * Service level (POST /v2/reporting/queues/service-level, reporting.md R19): for each queue's own threshold, and up
 * to 8 more, the calls answered within it and the three service levels: Asterisk's two (ServicelevelPerf, of the
 * answered calls; ServicelevelPerf2, counting abandons within the threshold as met) and the contact centre's (of
 * the callers offered, less short abandons). The chart draws each queue's service level by Asterisk's first figure.
 */
export default function ServiceLevelScreen() {
  return (
    <ReportScreen<ServiceLevelRequest, ServiceLevel>
      id="sl"
      title="Service level"
      intro="How many callers were answered within each queue's service level threshold, as Asterisk computes it and as contact centres do."
      path="/v2/reporting/queues/service-level"
      module="queue-service-level"
      rows={DAY_HOUR_TOTAL}
      rowsHint="By hour: a range of at most 31 days."
      fieldNames={['serviceLevelThresholds']}
      more={(v) => {
        const text = (v.serviceLevelThresholds ?? '').trim();
        // Sent as typed (the API judges them): "20, 60" → [20, 60]; a word stays a word and gets the API's message.
        return text ? { serviceLevelThresholds: text.split(/[\s,]+/).map((t) => (/^\d+$/.test(t) ? Number(t) : t)) as number[] } : {};
      }}
      fields={(form) => (
        <fieldset>
          <legend>More thresholds</legend>
          <Field
            form={form}
            name="serviceLevelThresholds"
            label="Seconds (up to 8, commas between)"
            hint="Each queue's own threshold always comes first."
            inputMode="numeric"
          />
        </fieldset>
      )}
    >
      {({ asked, answer, what }) => <LevelReport asked={asked} answer={answer} what={what} />}
    </ReportScreen>
  );
}

function LevelReport(props: { asked: ServiceLevelRequest; answer: ServiceLevel; what: string }) {
  const { asked, answer } = props;
  const chart = useMemo(() => {
    const periods: string[] = [];
    const index = new Map<string, number>();
    for (const r of answer.results) {
      const p = periodOf(r);
      if (!index.has(p.key)) index.set(p.key, periods.push(p.label) - 1);
    }
    const byQueue = new Map<number, { name: string; values: (number | null)[] }>();
    for (const r of answer.results) {
      let q = byQueue.get(r.queueId);
      if (!q) byQueue.set(r.queueId, (q = { name: r.queueName, values: periods.map(() => null) }));
      q.values[index.get(periodOf(r).key) as number] = r.levels[0]?.serviceLevel ?? null;
    }
    const series: ChartSeries[] = [...byQueue.values()].map((q, i) => ({
      label: `${q.name} (%)`,
      values: q.values,
      kind: 'line',
      colour: ((i % 4) + 1) as 1 | 2 | 3 | 4,
    }));
    return { periods, series };
  }, [answer]);
  const rows = answer.results.flatMap((r) => r.levels.map((l) => ({ r, l })));
  return (
    <>
      {chart.periods.length > 1 && (
        <Chart
          label={`Each queue's service level at its own threshold, answered calls (Asterisk's ServicelevelPerf), ${asked.distribution === 'hourly' ? 'by hour' : 'by day'}. Every figure is in the table below.`}
          periods={chart.periods}
          series={chart.series}
        />
      )}
      <Table<{ r: Row; l: Level }>
        caption={`Service level by queue and threshold, ${props.what}`}
        rows={rows}
        rowKey={({ r, l }) => `${r.queueId} ${periodOf(r).key} ${l.seconds}`}
        empty="No calls in this range."
        class="report-table"
        columns={[
          { key: 'queue', header: 'Queue', rowHeader: true, cell: ({ r }) => r.queueName },
          { key: 'period', header: asked.distribution === 'totals' ? 'From' : 'Period', cell: ({ r }) => r.date },
          { key: 'offered', header: 'Offered', numeric: true, cell: ({ r }) => integer(r.offered) },
          { key: 'answered', header: 'Answered', numeric: true, cell: ({ r }) => integer(r.answered) },
          { key: 'abandoned', header: 'Abandoned', numeric: true, cell: ({ r }) => integer(r.abandoned) },
          { key: 'short', header: 'Short abandons', numeric: true, cell: ({ r }) => integer(r.shortAbandons) },
          {
            key: 'seconds',
            header: 'Threshold',
            numeric: true,
            cell: ({ r, l }) => `${l.seconds} s${l.seconds === r.serviceLevelSeconds ? ' (queue)' : ''}`,
          },
          { key: 'within', header: 'Answered within', numeric: true, cell: ({ l }) => integer(l.answeredWithin) },
          { key: 'abandonedWithin', header: 'Abandoned within', numeric: true, cell: ({ l }) => integer(l.abandonedWithin) },
          { key: 'sl', header: 'Of answered (Asterisk)', numeric: true, cell: ({ l }) => percent(l.serviceLevel) },
          { key: 'sl2', header: 'Abandons within as met (Asterisk 2)', numeric: true, cell: ({ l }) => percent(l.serviceLevel2) },
          { key: 'slOffered', header: 'Of offered', numeric: true, cell: ({ l }) => percent(l.serviceLevelOffered) },
        ]}
      />
    </>
  );
}
