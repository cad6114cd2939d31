import { useState } from 'preact/hooks';
import { api } from '../api';
import { Field, Form, Submit, useForm } from '../components/form';
import { Link } from '../router';
import { session } from '../session';
import type { SavedFilterCreate, SavedFilterCreated } from '../types';

/** A list's page is not part of what a saved report runs (its e-mail holds every record). */
function withoutPaging(request: object): object {
  const { page: _page, recordsPerPage: _perPage, paginated: _paginated, ...rest } = request as Record<string, unknown>;
  return rest;
}

/**
 * "Save as filter" under a report: the report's request as a saved filter of the API (POST /v2/reporting/saved),
 * optionally scheduled: e-mailed daily, weekly or monthly to recipients as CSV or XLSX, each run for the period
 * that just ended (the request's days are replaced by it, api.md §4.2 and reporting.md R24).
 */
export function SaveAsFilter(props: { path: string; module: SavedFilterCreate['module']; request: object }) {
  const form = useForm(['name', 'description', 'recipients', 'frequency', 'scheduled', 'postParams']);
  const [scheduled, setScheduled] = useState(false);
  return (
    <details class="save-filter">
      <summary>Save as filter or schedule</summary>
      <Form
        form={form}
        label="Save as filter"
        onSubmit={async (v, el) => {
          const body: SavedFilterCreate = {
            tenantId: session.value?.tenant.id ?? 0,
            url: props.path,
            module: props.module,
            name: (v.name ?? '').trim(),
            description: v.description?.trim() || null,
            postParams: { ...withoutPaging(props.request), format: v.format === 'xlsx' ? 'xlsx' : 'csv' },
            scheduled: scheduled ? 1 : 0,
            ...(scheduled ? { recipients: v.recipients ?? '', frequency: (v.frequency || 'daily') as 'daily' } : {}),
          };
          const made = await api.post<SavedFilterCreated>('/v2/reporting/saved', body);
          el.reset();
          setScheduled(false);
          return `Saved as “${body.name}” (filter ${made[0]?.id ?? '?'}).`;
        }}
      >
        <Field form={form} name="name" label="Name" maxLength={200} required />
        <Field form={form} name="description" label="Description (optional)" maxLength={2000} />
        <div class="field-check">
          <input type="checkbox" id="save-scheduled" checked={scheduled} onChange={(e) => setScheduled(e.currentTarget.checked)} />
          <label for="save-scheduled">E-mail it on a schedule</label>
        </div>
        {scheduled && (
          <>
            <Field
              form={form}
              name="recipients"
              label="Recipients"
              hint="E-mail addresses, commas between."
              type="text"
              inputMode="email"
              autoComplete="off"
              required
            />
            <div class="field">
              <label for="save-frequency">Every</label>
              <select id="save-frequency" name="frequency" defaultValue="daily">
                <option value="daily">Day (the day before)</option>
                <option value="weekly">Week (the week before, from Monday)</option>
                <option value="monthly">Month (the month before)</option>
              </select>
            </div>
            <div class="field">
              <label for="save-format">Attachment</label>
              <select id="save-format" name="format" defaultValue="csv">
                <option value="csv">CSV</option>
                <option value="xlsx">XLSX (Excel)</option>
              </select>
            </div>
          </>
        )}
        <Submit form={form}>Save</Submit>
        {form.done.value && (
          <p>
            <Link href="/reports/saved">Saved reports</Link> lists it, with its runs and “Run now”.
          </p>
        )}
      </Form>
    </details>
  );
}
