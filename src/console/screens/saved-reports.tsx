import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { Submit, useForm } from '../components/form';
import { Pager } from '../components/records';
import { Table } from '../components/table';
import { can, session, timezone } from '../session';
import { dateTime, integer, zoneName } from '../time';
import type { ReportRun, ReportRunPage, SavedFilter, SavedFilterPage } from '../types';

const REPORTS: Record<string, string> = {
  calls: 'Calls',
  'queue-stats': 'Queue statistics',
  'queue-agent-availability': 'Agent availability',
  'queue-service-level': 'Service level',
  'queue-agents': 'Agents',
  'queue-lost-calls': 'Lost callers',
  'queue-agent-sessions': 'Agent sessions',
};
const EVERY: Record<string, string> = { daily: 'Every day', weekly: 'Every week', monthly: 'Every month' };

const formatOf = (f: SavedFilter) => ((f.postParams as { format?: string } | null)?.format === 'xlsx' ? 'XLSX' : 'CSV');

/**
 * Saved reports (GET /v2/reporting/saved): the tenant's saved filters with their schedule; "Run now" runs one
 * (POST /v2/reporting/saved/{id}/run: the period that just ended, e-mailed to its recipients and recorded like a
 * scheduled run), and "Runs" shows its record (GET /v2/reporting/saved/{id}/runs), newest first.
 */
export default function SavedReports() {
  const zone = timezone.value;
  const tenantId = session.value?.tenant.id ?? 0;
  const [page, setPage] = useState<SavedFilterPage | null>(null);
  const [pageNo, setPageNo] = useState(1);
  const [open, setOpen] = useState<SavedFilter | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    void api
      .get<SavedFilterPage>('/v2/reporting/saved', { tenantId, page: pageNo, recordsPerPage: 50 })
      .then(setPage, (e: Error) => setFailed(e.message));
  }, [pageNo]);
  return (
    <section class="screen" aria-labelledby="saved-title">
      <h1 id="saved-title" tabIndex={-1}>
        Saved reports
      </h1>
      <p>Reports saved from the report screens (“Save as filter or schedule”), and those a scheduled e-mail sends.</p>
      {failed && (
        <p class="form-error" role="alert">
          {failed}
        </p>
      )}
      <Table<SavedFilter>
        caption={`Saved reports (times in ${zoneName(zone)})`}
        rows={page?.records ?? []}
        rowKey={(f) => f.id}
        empty={page === null ? 'Loading…' : 'No saved report yet.'}
        class="saved-table"
        columns={[
          { key: 'name', header: 'Name', rowHeader: true, cell: (f) => f.name },
          { key: 'report', header: 'Report', cell: (f) => REPORTS[f.module] ?? f.module },
          {
            key: 'schedule',
            header: 'Schedule',
            cell: (f) => (f.scheduled === 1 ? `${EVERY[f.frequency ?? ''] ?? f.frequency}, to ${f.recipients ?? ''}` : 'Not scheduled'),
          },
          { key: 'format', header: 'Attachment', cell: formatOf },
          { key: 'created', header: 'Saved', cell: (f) => dateTime(f.createdAt, zone) },
          {
            key: 'actions',
            header: 'Actions',
            cell: (f) => (
              <span class="actions">
                <button
                  type="button"
                  class="secondary"
                  aria-expanded={open?.id === f.id}
                  onClick={() => setOpen(open?.id === f.id ? null : f)}
                >
                  Runs<span class="visually-hidden"> of {f.name}</span>
                </button>
                {can('reporting.saved.run') && <RunNow filter={f} onRun={() => setOpen({ ...f })} />}
              </span>
            ),
          },
        ]}
      />
      {page && page.maxPage > 1 && <Pager page={page} label="saved reports" onPage={setPageNo} />}
      {open && <Runs filter={open} zone={zone} />}
    </section>
  );
}

function RunNow(props: { filter: SavedFilter; onRun: () => void }) {
  const form = useForm([]);
  return (
    <form
      class="inline-form"
      aria-label={`Run ${props.filter.name} now`}
      onSubmit={(e) => {
        e.preventDefault();
        void form.submit(async () => {
          const run = await api.post<ReportRun>(`/v2/reporting/saved/${props.filter.id}/run`, {});
          props.onRun();
          return `${run.status === 'sent' ? 'Sent' : `Outcome: ${run.status}`}: ${integer(run.rows ?? 0)} rows for ${run.periodStart} to ${run.periodEnd}.`;
        });
      }}
    >
      <Submit form={form} class="secondary">
        Run now<span class="visually-hidden"> {props.filter.name}</span>
      </Submit>
      {form.error.value && <span role="alert"> {form.error.value}</span>}
      {form.done.value && <span role="status"> {form.done.value}</span>}
    </form>
  );
}

function Runs(props: { filter: SavedFilter; zone: string }) {
  const [runs, setRuns] = useState<ReportRunPage | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    setRuns(null);
    void api
      .get<ReportRunPage>(`/v2/reporting/saved/${props.filter.id}/runs`, { recordsPerPage: 50 })
      .then(setRuns, (e: Error) => setFailed(e.message));
  }, [props.filter]);
  return (
    <div class="runs">
      <h2>Runs of {props.filter.name}</h2>
      {failed && (
        <p class="form-error" role="alert">
          {failed}
        </p>
      )}
      <Table<ReportRun>
        caption={`Runs of ${props.filter.name}, newest first`}
        captionHidden
        rows={runs?.records ?? []}
        rowKey={(r) => r.id}
        empty={runs === null ? 'Loading…' : 'It has not run yet.'}
        class="report-table"
        columns={[
          { key: 'period', header: 'Period', rowHeader: true, cell: (r) => `${r.periodStart} to ${r.periodEnd}` },
          { key: 'kind', header: 'How', cell: (r) => r.kind },
          { key: 'status', header: 'Outcome', cell: (r) => r.status },
          { key: 'rows', header: 'Rows', numeric: true, cell: (r) => (r.rows === null ? '–' : integer(r.rows)) },
          { key: 'started', header: 'Started', cell: (r) => (r.startedAt ? dateTime(r.startedAt, props.zone) : '–') },
          { key: 'error', header: 'Error', cell: (r) => r.error ?? '' },
        ]}
      />
    </div>
  );
}
