import type { Selectable } from 'kysely';
import type { Config } from '../../config';
import type { Clock } from '../../clock';
import type { Db, OpenDatabase } from '../../db/database';
import type { Logger } from '../../log';
import type { Mailer } from '../../mail/mailer';
import type { Validator } from '../../validation/validation';
import type { SavedFilterTable } from '../../db/schema';
import { AppError } from '../../errors';
import { callerOf } from '../../access/caller';
import { scopeOfStoredRow } from '../../access/scope';
import { callsReport, type CallsFilters } from '../calls/calls.service';
import { queryObject, splitUrl } from '../saved-filters/saved-filters.service';
import { getTenantRef, timezoneOfTenant } from '../tenants/tenants.repository';
import { findUserById } from '../users/users.repository';
import type { Period } from './periods';
import { renderReport } from './render';

export type FilterRow = Selectable<SavedFilterTable>;

/** What the scheduled reports use (docs/architecture.md, "The service shape"). */
export interface ReportDeps {
  readonly db: Db;
  /** The raw connection the REPORTSENT and REPORTFAILED events are written through. */
  readonly database: OpenDatabase;
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
  const parse = (text: string | null) => (text ? (JSON.parse(text) as Record<string, unknown>) : {});
  const merged = {
    ...(query ? queryObject(query) : {}),
    ...parse(filter.query_params),
    ...parse(filter.post_params),
    tenantId: String(filter.tenant_id),
    startDate: period.startDate,
    endDate: period.endDate,
    paginated: '0',
  };
  const text = Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v]));
  return deps.validator.text('calls-query', text);
}

/**
 * Runs a filter's report for one period in-process, as the filter's owner (a filter cannot reach data its
 * owner cannot), and e-mails it to the filter's recipients. Returns the number of rows. Throws ReportError
 * with a sentence for the admin when it cannot.
 */
export async function sendFilterReport(deps: ReportDeps, filter: FilterRow, period: Period): Promise<number> {
  const { db } = deps.database;
  const owner = await findUserById(db, filter.user_id);
  if (!owner) throw new ReportError(`The filter's owner (user ${filter.user_id}) no longer exists`);
  const caller = await callerOf(db, owner);
  if (!caller.permissions.has('reporting.calls.read'))
    throw new ReportError(`The filter's owner ${owner.email} may no longer read the calls report`);
  const recipients = (filter.recipients ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  if (recipients.length === 0) throw new ReportError('The filter has no recipients');
  let page;
  try {
    page = await callsReport(deps, caller, runFilters(deps, filter, period));
  } catch (err) {
    if (err instanceof AppError && err.status < 500) throw new ReportError(`The report could not be made: ${err.message}`);
    throw err;
  }
  const tenant = await getTenantRef(db, scopeOfStoredRow(filter));
  const mail = renderReport({
    filterName: filter.name,
    description: filter.description,
    tenantName: tenant.name,
    timezone: await timezoneOfTenant(db, scopeOfStoredRow(filter)),
    period,
    rows: page.records,
  });
  try {
    await deps.mailer.send({
      to: recipients,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      attachments: [{ filename: mail.csvName, content: mail.csv, contentType: 'text/csv; charset=utf-8' }],
    });
  } catch (err) {
    throw new ReportError(describeMailError(err));
  }
  return page.records.length;
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
