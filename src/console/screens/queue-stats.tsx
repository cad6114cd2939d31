import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, download } from '../api';
import { Chart, type ChartSeries } from '../components/chart';
import { Form, Submit, useForm } from '../components/form';
import { Table } from '../components/table';
import { PRESETS, rangeOf, type DayRange, type Preset } from '../reports/range';
import { session, timezone } from '../session';
import { duration, integer, serverNow, zoneName } from '../time';
import type { LiveState, QueueStats, QueueStatsRequest } from '../types';

type Rows = 'daily' | 'hourly' | 'totals';
type Row = QueueStats['results'][number];

const ROWS: readonly { value: Rows; label: string }[] = [
  { value: 'daily', label: 'By day' },
  { value: 'hourly', label: 'By hour' },
  { value: 'totals', label: 'Whole range' },
];

const PATH = '/v2/reporting/queues/stats';

/**
 * Queue statistics (POST /v2/reporting/queues/stats): offered, answered, abandoned and the rest for a range of the
 * tenant's local days, by day, by hour of one day, or as one row, for any of the tenant's queues. The chart sums
 * the chosen queues per period; the table beside it has every queue's row as the API answered it, and the
 * downloads are the API's own CSV and XLSX of the same request.
 */
export default function QueueStatsScreen() {
  const zone = timezone.value;
  const tenantId = session.value?.tenant.id ?? 0;
  const [queues, setQueues] = useState<{ id: number; name: string }[] | null>(null);
  const [preset, setPreset] = useState<Preset>('today');
  const [rows, setRows] = useState<Rows>('daily');
  const [asked, setAsked] = useState<QueueStatsRequest | null>(null);
  const [answer, setAnswer] = useState<QueueStats | null>(null);
  const form = useForm(['startDate', 'endDate', 'queueId', 'distribution']);
  const downloads = useForm([]);

  const run = async (body: QueueStatsRequest) => {
    setAnswer(await api.post<QueueStats>(PATH, body));
    setAsked(body);
  };
  useEffect(() => {
    void api.get<LiveState>('/v2/reporting/queues/live', { tenantId }).then(
      (s) => {
        const list = s.queues.map((q) => ({ id: q.queueId, name: q.name }));
        setQueues(list);
        const range = rangeOf('today', zone, serverNow(Date.now()));
        if (list.length > 0) void form.submit(() => run({ queueId: list.map((q) => q.id), ...range, distribution: 'daily' }));
      },
      (e: Error) => form.fail(e),
    );
  }, []);

  const today = rangeOf('today', zone, serverNow(Date.now()));
  return (
    <section class="screen" aria-labelledby="stats-title">
      <h1 id="stats-title" tabIndex={-1}>
        Queue statistics
      </h1>
      <Form
        form={form}
        label="Choose the report"
        class="form report-form"
        onSubmit={async (v, el) => {
          const custom = { startDate: v.startDate ?? '', endDate: v.endDate ?? '' };
          const range: DayRange = rangeOf(preset, zone, serverNow(Date.now()), custom);
          const queueId = [...el.querySelectorAll<HTMLInputElement>('input[name=queue]:checked')].map((i) => Number(i.value));
          await run({ queueId, ...range, distribution: rows });
        }}
      >
        <div class="report-choices">
          <fieldset>
            <legend>Days (in {zoneName(zone)})</legend>
            <div class="field">
              <label for="stats-preset">Range</label>
              <select id="stats-preset" value={preset} onChange={(e) => setPreset(e.currentTarget.value as Preset)}>
                {PRESETS.map((p) => (
                  <option key={p.value} value={p.value}>
                    {p.label}
                  </option>
                ))}
              </select>
            </div>
            {preset === 'custom' && <CustomDays form={form} today={today.endDate} />}
          </fieldset>
          <fieldset>
            <legend>Rows</legend>
            {ROWS.map((r) => (
              <div class="field-check" key={r.value}>
                <input
                  type="radio"
                  id={`stats-rows-${r.value}`}
                  name="rows"
                  value={r.value}
                  checked={rows === r.value}
                  onChange={() => setRows(r.value)}
                />
                <label for={`stats-rows-${r.value}`}>{r.label}</label>
              </div>
            ))}
            <p class="hint">By hour: a range of at most 31 days.</p>
          </fieldset>
          <fieldset aria-describedby={form.fieldErrors.value.queueId ? 'stats-queue-error' : undefined}>
            <legend>Queues</legend>
            {queues === null && <p>Loading…</p>}
            {queues?.length === 0 && <p>This tenant has no queue.</p>}
            {queues?.map((q) => (
              <div class="field-check" key={q.id}>
                <input type="checkbox" id={`stats-queue-${q.id}`} name="queue" value={q.id} defaultChecked />
                <label for={`stats-queue-${q.id}`}>{q.name}</label>
              </div>
            ))}
            {form.fieldErrors.value.queueId && (
              <p class="field-error" id="stats-queue-error">
                {form.fieldErrors.value.queueId}
              </p>
            )}
          </fieldset>
        </div>
        <Submit form={form}>Show</Submit>
      </Form>
      {asked && answer && (
        <Report
          asked={asked}
          answer={answer}
          zone={zone}
          onDownload={(format) => void downloads.submit(async () => `Saved as ${await download(PATH, asked, format)}.`)}
          downloads={downloads}
        />
      )}
    </section>
  );
}

function CustomDays(props: { form: ReturnType<typeof useForm>; today: string }) {
  const errors = props.form.fieldErrors.value;
  return (
    <div class="report-days">
      {(['startDate', 'endDate'] as const).map((name) => (
        <div class="field" key={name}>
          <label for={`stats-${name}`}>{name === 'startDate' ? 'From' : 'To (included)'}</label>
          <input
            type="date"
            id={`stats-${name}`}
            name={name}
            defaultValue={props.today}
            required
            aria-invalid={errors[name] ? 'true' : undefined}
            aria-describedby={errors[name] ? `stats-${name}-error` : undefined}
          />
          {errors[name] && (
            <p class="field-error" id={`stats-${name}-error`}>
              {errors[name]}
            </p>
          )}
        </div>
      ))}
    </div>
  );
}

/** A period's key and label: hourly rows carry their instant (the two 01:00 of a DST night differ by it). */
const periodOf = (r: Row) => ({ key: r.start ?? r.date, label: r.distribution === 'hourly' ? r.date.slice(11) : r.date });

function Report(props: {
  asked: QueueStatsRequest;
  answer: QueueStats;
  zone: string;
  onDownload: (format: 'csv' | 'xlsx') => void;
  downloads: ReturnType<typeof useForm>;
}) {
  const { asked, answer } = props;
  const what = `${asked.startDate === asked.endDate ? asked.startDate : `${asked.startDate} to ${asked.endDate}`} (${zoneName(props.zone)})`;
  const chart = useMemo(() => {
    const periods: string[] = [];
    const index = new Map<string, number>();
    const sums = { offered: [] as number[], answered: [] as number[], abandoned: [] as number[] };
    for (const r of answer.results) {
      const p = periodOf(r);
      let i = index.get(p.key);
      if (i === undefined) {
        i = periods.push(p.label) - 1;
        index.set(p.key, i);
        sums.offered.push(0);
        sums.answered.push(0);
        sums.abandoned.push(0);
      }
      sums.offered[i] = (sums.offered[i] ?? 0) + r.totalInbound;
      sums.answered[i] = (sums.answered[i] ?? 0) + r.inboundAnswered;
      sums.abandoned[i] = (sums.abandoned[i] ?? 0) + r.abandons;
    }
    const series: ChartSeries[] = [
      { label: 'Offered', values: sums.offered, kind: 'bar', colour: 1 },
      { label: 'Answered', values: sums.answered, kind: 'line', colour: 2 },
      { label: 'Abandoned', values: sums.abandoned, kind: 'line', colour: 3 },
    ];
    return { periods, series };
  }, [answer]);
  return (
    <div class="report">
      <h2>
        {asked.queueId.length === 1 ? '1 queue' : `${asked.queueId.length} queues`}, {what}
      </h2>
      <div class="report-actions">
        <button type="button" class="secondary" disabled={props.downloads.busy.value} onClick={() => props.onDownload('csv')}>
          Download CSV
        </button>
        <button type="button" class="secondary" disabled={props.downloads.busy.value} onClick={() => props.onDownload('xlsx')}>
          Download XLSX
        </button>
        {props.downloads.error.value && <span role="alert">{props.downloads.error.value}</span>}
        {props.downloads.done.value && <span role="status">{props.downloads.done.value}</span>}
      </div>
      {chart.periods.length > 1 && (
        <Chart
          label={`Offered, answered and abandoned calls of the chosen queues together, ${asked.distribution === 'hourly' ? 'by hour' : 'by day'}. Every figure is in the table below, queue by queue.`}
          periods={chart.periods}
          series={chart.series}
        />
      )}
      <Table
        caption={`Statistics by queue, ${what}`}
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
    </div>
  );
}
