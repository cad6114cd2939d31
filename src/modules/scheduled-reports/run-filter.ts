import type { Selectable } from 'kysely';
import type { Config } from '../../config';
import type { Clock } from '../../clock';
import type { Db } from '../../db/database';
import type { AnyDatabase } from '../../db/engine';
import type { Logger } from '../../log';
import type { Mailer } from '../../mail/mailer';
import type { Validator } from '../../validation/validation';
import type { SavedFilterTable } from '../../db/schema';
import { AppError } from '../../errors';
import { callerOf } from '../../access/caller';
import { scopeOfStoredRow } from '../../access/scope';
import { requireTenant } from '../../access/scope';
import type { Caller } from '../../access/caller';
import { CONTENT_TYPES } from '../../sheets/sheet';
import { workbookBytes } from '../../sheets/write';
import { callsReport, callsWorkbook, type CallsFilters } from '../calls/calls.service';
import { isQueueReport, QUEUE_REPORTS, queueReportExport, type QueueReportModule } from '../queue-reports/report-export.service';
import { queryObject, splitUrl, type AttachmentFormat } from '../saved-filters/saved-filters.service';
import { getTenantRef, timezoneOfTenant } from '../tenants/tenants.repository';
import { findUserById } from '../auth/credentials.repository';
import type { Period } from './periods';
import { attachmentName, renderQueueReport, renderReport, type ReportEmail } from './render';

export type FilterRow = Selectable<SavedFilterTable>;

/** What the scheduled reports use (docs/architecture.md, "The service shape"). */
export interface ReportDeps {
  readonly db: Db;
  /** The raw connection the REPORTSENT and REPORTFAILED events are written through. */
  readonly database: AnyDatabase;
  readonly validator: Validator;
  readonly mailer: Mailer;
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: Pick<Config, 'reportHour' | 'reportCatchUpDays' | 'reportAttempts'>;
}

/** A run that did not go out, with the sentence shown to the admin (the filter's errorDescription). */
export class ReportError extends Error {}

/**
 * The calls-report filters of a run: the filter's URL query, queryParams and postParams (later ones win),
 * then the filter's tenant and the period, which always win.
 */
export function runFilters(deps: Pick<ReportDeps, 'validator'>, filter: FilterRow, period: Period): CallsFilters {
  const [, query] = splitUrl(filter.api_url);
  const { format: _format, ...post } = parse(filter.post_params); // the attachment's format, not a filter
  const merged = {
    ...(query ? queryObject(query) : {}),
    ...parse(filter.query_params),
    ...post,
    tenantId: String(filter.tenant_id),
    startDate: period.startDate,
    endDate: period.endDate,
    paginated: '0',
  };
  const text = Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v]));
  return deps.validator.text('calls-query', text);
}

const parse = (text: string | null) => (text ? (JSON.parse(text) as Record<string, unknown>) : {});

/** The attachment's format of a filter: postParams.format, CSV by default (reporting.md R24). */
const formatOf = (filter: FilterRow): AttachmentFormat => (parse(filter.post_params).format === 'xlsx' ? 'xlsx' : 'csv');

/** A made report: its e-mail, its attachment and its number of rows. */
interface Made {
  mail: ReportEmail;
  bytes: Buffer;
  rows: number;
}

/**
 * Runs a filter's report for one period in-process, as the filter's owner (a filter cannot reach data its
 * owner cannot), and e-mails it to the filter's recipients with every row attached (CSV or XLSX). Returns the
 * number of rows. Throws ReportError with a sentence for the admin when it cannot.
 */
export async function sendFilterReport(deps: ReportDeps, filter: FilterRow, period: Period): Promise<number> {
  const { db } = deps.database;
  const owner = await findUserById(db, filter.user_id);
  if (!owner) throw new ReportError(`The filter's owner (user ${filter.user_id}) no longer exists`);
  const caller = await callerOf(db, owner);
  const queue = isQueueReport(filter.module);
  const permission = queue ? 'reporting.queues.read' : 'reporting.calls.read';
  if (!caller.permissions.has(permission))
    throw new ReportError(`The filter's owner ${owner.email} may no longer read the ${queue ? 'queue reports' : 'calls report'}`);
  const recipients = (filter.recipients ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  if (recipients.length === 0) throw new ReportError('The filter has no recipients');
  const format = formatOf(filter);
  let made: Made;
  try {
    made = queue
      ? await makeQueueReport(deps, caller, filter, period, format)
      : await makeCallsReport(deps, caller, filter, period, format);
  } catch (err) {
    if (err instanceof AppError && err.status < 500) throw new ReportError(`The report could not be made: ${err.message}`);
    throw err;
  }
  try {
    await deps.mailer.send({
      to: recipients,
      subject: made.mail.subject,
      text: made.mail.text,
      html: made.mail.html,
      attachments: [{ filename: attachmentName(filter.name, period, format), content: made.bytes, contentType: CONTENT_TYPES[format] }],
    });
  } catch (err) {
    throw new ReportError(describeMailError(err));
  }
  return made.rows;
}

async function makeCallsReport(
  deps: ReportDeps,
  caller: Caller,
  filter: FilterRow,
  period: Period,
  format: AttachmentFormat,
): Promise<Made> {
  const { db } = deps;
  const page = await callsReport(deps, caller, runFilters(deps, filter, period));
  const tz = await timezoneOfTenant(db, scopeOfStoredRow(filter));
  const mail = renderReport({
    filterName: filter.name,
    description: filter.description,
    tenantName: (await getTenantRef(db, scopeOfStoredRow(filter))).name,
    timezone: tz,
    period,
    rows: page.records,
  });
  const book = callsWorkbook([page.records.map((record) => ({ record, timezone: tz }))], period);
  return { mail, bytes: await workbookBytes(book, format), rows: page.records.length };
}

/**
 * A queue report of the filter's postParams over the period, in the filter's tenant only (the owner may reach
 * more), made into the attachment by the same writer as the route's `?format=`.
 */
async function makeQueueReport(
  deps: ReportDeps,
  owner: Caller,
  filter: FilterRow,
  period: Period,
  format: AttachmentFormat,
): Promise<Made> {
  const { db } = deps;
  const module = filter.module as QueueReportModule;
  const { format: _format, ...params } = parse(filter.post_params);
  const body = deps.validator.body(QUEUE_REPORTS[module].schema, { ...params, startDate: period.startDate, endDate: period.endDate });
  const caller: Caller = { ...owner, scope: requireTenant(owner.scope, filter.tenant_id) };
  const report = await queueReportExport({ db, clock: deps.clock }, caller, module, body);
  const bytes = await workbookBytes(report.workbook, format);
  const mail = renderQueueReport({
    filterName: filter.name,
    description: filter.description,
    tenantName: (await getTenantRef(db, scopeOfStoredRow(filter))).name,
    timezone: await timezoneOfTenant(db, scopeOfStoredRow(filter)),
    period,
    title: QUEUE_REPORTS[module].title,
    rows: report.rows(),
    attachment: attachmentName(filter.name, period, format),
  });
  return { mail, bytes, rows: report.rows() };
}

/** A nodemailer failure as a sentence a PBX admin can act on. */
export function describeMailError(err: unknown): string {
  if (err instanceof AppError) return err.message; // e.g. no SMTP server configured
  const e = err as { code?: string; rejected?: string[]; response?: string; message?: string; address?: string; port?: number };
  if (e.code === 'EENVELOPE' && e.rejected && e.rejected.length > 0) {
    return `SMTP server refused recipient ${e.rejected.join(', ')}${e.response ? ` (${e.response})` : ''}`;
  }
  if (e.code === 'EAUTH') return `SMTP server refused the credentials${e.response ? ` (${e.response})` : ''}`;
  if (e.code === 'ECONNECTION' || e.code === 'ESOCKET' || e.code === 'ETIMEDOUT' || e.code === 'EDNS') {
    return `SMTP server could not be reached (${e.message ?? e.code})`;
  }
  return `Sending the e-mail failed: ${e.message ?? String(err)}`;
}
