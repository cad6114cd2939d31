import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, download } from '../api';
import { Form, Submit, useForm, type FormState } from '../components/form';
import { can, session, timezone } from '../session';
import { serverNow, zoneName } from '../time';
import type { LiveState, SavedFilterCreate } from '../types';
import { PRESETS, rangeOf, type Preset } from './range';
import { SaveAsFilter } from './save-filter';

/** What every queue report asks (api.md §4.3, reporting.md R20): queues, two local days, the rows' periods. */
export interface ReportRequest {
  /** Several queues; agent availability (the hosted API's) takes one. */
  queueId: number[] | number;
  startDate: string;
  endDate: string;
  distribution?: string;
}

export interface RowsChoice {
  readonly value: string;
  readonly label: string;
}

/** The rows most reports offer: by day, by hour (the API allows at most 31 days), one row for the range. */
export const DAY_HOUR_TOTAL: readonly RowsChoice[] = [
  { value: 'daily', label: 'By day' },
  { value: 'hourly', label: 'By hour' },
  { value: 'totals', label: 'Whole range' },
];

/**
 * A queue report's screen: the choices (a range of the tenant's local days, the rows, the queues; a report may add
 * fields), the API's answer drawn by `children`, and the API's own CSV and XLSX of the same request. It opens on
 * today for all the tenant's queues. A request the API refuses shows its message under the field it names (the
 * form's fields are the request's names), and the last report stays on screen.
 */
export function ReportScreen<Req extends ReportRequest, Ans>(props: {
  /** Ids of the screen's inputs start with it. */
  id: string;
  title: string;
  intro: ComponentChildren;
  path: string;
  /** The saved-filter module of the report (reporting.md R24). */
  module: SavedFilterCreate['module'];
  rows: readonly RowsChoice[];
  rowsHint?: string;
  /** The report is of one queue (a choice among them, not a set). */
  oneQueue?: boolean;
  /** More fields of the form, and the request's values they make (the values of the form by name). */
  fields?: (form: FormState) => ComponentChildren;
  fieldNames?: readonly string[];
  more?: (values: Record<string, string>) => Partial<Req>;
  /** The report drawn; `again` asks once more with some values changed (another page of a list). */
  children: (report: { asked: Req; answer: Ans; what: string; again: (patch: Partial<Req>) => void }) => ComponentChildren;
}) {
  const zone = timezone.value;
  const tenantId = session.value?.tenant.id ?? 0;
  const { id } = props;
  const [queues, setQueues] = useState<{ id: number; name: string }[] | null>(null);
  const [preset, setPreset] = useState<Preset>('today');
  const [rows, setRows] = useState<string>(props.rows[0]?.value ?? 'totals');
  const [report, setReport] = useState<{ asked: Req; answer: Ans } | null>(null);
  const form = useForm(['startDate', 'endDate', 'queueId', 'distribution', ...(props.fieldNames ?? [])]);
  const downloads = useForm([]);

  const distributionOf = (value: string) => (props.rows.length > 0 ? { distribution: value } : {});
  const run = async (asked: Req) => setReport({ asked, answer: await api.post<Ans>(props.path, asked) });
  const again = (patch: Partial<Req>) => report && void form.submit(() => run({ ...report.asked, ...patch }));
  useEffect(() => {
    // The tenant's queues as the queue reports' own permission reads them (the live route, not the directory's).
    void api.get<LiveState>('/v2/reporting/queues/live', { tenantId }).then(
      (s) => {
        const list = s.queues.map((q) => ({ id: q.queueId, name: q.name }));
        setQueues(list);
        const today = rangeOf('today', zone, serverNow(Date.now()));
        const queueId = props.oneQueue ? list[0]?.id : list.map((q) => q.id);
        if (list.length > 0) void form.submit(() => run({ queueId, ...today, ...distributionOf(rows) } as Req));
      },
      (e: Error) => form.fail(e),
    );
  }, []);

  const today = rangeOf('today', zone, serverNow(Date.now()));
  const asked = report?.asked;
  const what = asked
    ? `${queuesOf(asked.queueId, queues ?? [])}, ${
        asked.startDate === asked.endDate ? asked.startDate : `${asked.startDate} to ${asked.endDate}`
      } (${zoneName(zone)})`
    : '';
  // The drawn report changes only with the answer: the form's own state (busy while asking) must not redraw a
  // year of rows (a 366-row table re-diffed took 120 ms on every click of Show).
  const drawn = useMemo(() => report && props.children({ ...report, what, again }), [report, what]);
  return (
    <section class="screen" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`} tabIndex={-1}>
        {props.title}
      </h1>
      <p>{props.intro}</p>
      <Form
        form={form}
        label="Choose the report"
        class="form report-form"
        onSubmit={async (v, el) => {
          const range = rangeOf(preset, zone, serverNow(Date.now()), { startDate: v.startDate ?? '', endDate: v.endDate ?? '' });
          const ticked = [...el.querySelectorAll<HTMLInputElement>('input[name=queue]:checked')].map((i) => Number(i.value));
          const queueId = props.oneQueue ? ticked[0] : ticked;
          await run({ queueId, ...range, ...distributionOf(rows), ...props.more?.(v) } as Req);
        }}
      >
        <div class="report-choices">
          <fieldset>
            <legend>Days (in {zoneName(zone)})</legend>
            <div class="field">
              <label for={`${id}-preset`}>Range</label>
              <select id={`${id}-preset`} value={preset} onChange={(e) => setPreset(e.currentTarget.value as Preset)}>
                {PRESETS.map((p) => (
                  <option key={p.value} value={p.value}>
                    {p.label}
                  </option>
                ))}
              </select>
            </div>
            {preset === 'custom' && <CustomDays id={id} form={form} today={today.endDate} />}
          </fieldset>
          {props.rows.length > 0 && (
            <fieldset>
              <legend>Rows</legend>
              {props.rows.map((r) => (
                <div class="field-check" key={r.value}>
                  <input
                    type="radio"
                    id={`${id}-rows-${r.value}`}
                    name="rows"
                    value={r.value}
                    checked={rows === r.value}
                    onChange={() => setRows(r.value)}
                  />
                  <label for={`${id}-rows-${r.value}`}>{r.label}</label>
                </div>
              ))}
              {props.rowsHint && <p class="hint">{props.rowsHint}</p>}
            </fieldset>
          )}
          <fieldset aria-describedby={form.fieldErrors.value.queueId ? `${id}-queue-error` : undefined}>
            <legend>{props.oneQueue ? 'Queue' : 'Queues'}</legend>
            {queues === null && <p>Loading…</p>}
            {queues?.length === 0 && <p>This tenant has no queue.</p>}
            {queues?.map((q) => (
              <div class="field-check" key={q.id}>
                <input
                  type={props.oneQueue ? 'radio' : 'checkbox'}
                  id={`${id}-queue-${q.id}`}
                  name="queue"
                  value={q.id}
                  defaultChecked={!props.oneQueue || q.id === queues[0]?.id}
                />
                <label for={`${id}-queue-${q.id}`}>{q.name}</label>
              </div>
            ))}
            {form.fieldErrors.value.queueId && (
              <p class="field-error" id={`${id}-queue-error`}>
                {form.fieldErrors.value.queueId}
              </p>
            )}
          </fieldset>
          {props.fields?.(form)}
        </div>
        <Submit form={form}>Show</Submit>
      </Form>
      {report && (
        <div class="report">
          <h2>{what}</h2>
          <div class="report-actions">
            {(['csv', 'xlsx'] as const).map((format) => (
              <button
                key={format}
                type="button"
                class="secondary"
                disabled={downloads.busy.value}
                onClick={() => void downloads.submit(async () => `Saved as ${await download(props.path, report.asked, format)}.`)}
              >
                Download {format.toUpperCase()}
              </button>
            ))}
            {downloads.error.value && <span role="alert">{downloads.error.value}</span>}
            {downloads.done.value && <span role="status">{downloads.done.value}</span>}
          </div>
          {can('reporting.saved.create') && <SaveAsFilter path={props.path} module={props.module} request={report.asked} />}
          {drawn}
        </div>
      )}
    </section>
  );
}

/** "3 queues", "1 queue", or the one queue's name. */
function queuesOf(queueId: number[] | number, queues: readonly { id: number; name: string }[]): string {
  if (!Array.isArray(queueId)) return queues.find((q) => q.id === queueId)?.name ?? `Queue ${queueId}`;
  return queueId.length === 1 ? '1 queue' : `${queueId.length} queues`;
}

function CustomDays(props: { id: string; form: FormState; today: string }) {
  const errors = props.form.fieldErrors.value;
  return (
    <div class="report-days">
      {(['startDate', 'endDate'] as const).map((name) => (
        <div class="field" key={name}>
          <label for={`${props.id}-${name}`}>{name === 'startDate' ? 'From' : 'To (included)'}</label>
          <input
            type="date"
            id={`${props.id}-${name}`}
            name={name}
            defaultValue={props.today}
            required
            aria-invalid={errors[name] ? 'true' : undefined}
            aria-describedby={errors[name] ? `${props.id}-${name}-error` : undefined}
          />
          {errors[name] && (
            <p class="field-error" id={`${props.id}-${name}-error`}>
              {errors[name]}
            </p>
          )}
        </div>
      ))}
    </div>
  );
}

/** A row's period: its key (hourly rows carry their instant: the two 01:00 of a DST night differ by it) and label. */
export const periodOf = (r: { date: string; start?: string | null; distribution?: string }) => ({
  key: r.start ?? r.date,
  label: r.distribution === 'hourly' ? r.date.slice(11) : r.date,
});

/** Figures of rows summed by period, in the order the periods first appear (the chart of several queues). */
export function sumsByPeriod<R extends { date: string; start?: string | null; distribution?: string }>(
  rows: readonly R[],
  figures: readonly ((r: R) => number)[],
): { periods: string[]; sums: number[][] } {
  const periods: string[] = [];
  const index = new Map<string, number>();
  const sums = figures.map(() => [] as number[]);
  for (const r of rows) {
    const p = periodOf(r);
    let i = index.get(p.key);
    if (i === undefined) {
      i = periods.push(p.label) - 1;
      index.set(p.key, i);
      for (const s of sums) s.push(0);
    }
    figures.forEach((f, k) => ((sums[k] as number[])[i as number] = ((sums[k] as number[])[i as number] ?? 0) + f(r)));
  }
  return { periods, sums };
}
