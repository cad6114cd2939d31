import { AppError } from '../../errors';
import type { Validator } from '../../validation/validation';
import { isQueueReport, QUEUE_REPORTS } from '../queue-reports/report-export.service';
import type { SavedFilterInput } from './saved-filters.repository';

/** The report a saved filter of module `calls` runs (decisions.md §6b). */
export const CALLS_REPORT_PATH = '/v2/reporting/calls';
/** The attachment a scheduled report's e-mail carries: postParams.format (reporting.md R24). */
export const ATTACHMENT_FORMATS = ['csv', 'xlsx'] as const;
export type AttachmentFormat = (typeof ATTACHMENT_FORMATS)[number];

type RuleInput = Pick<
  SavedFilterInput,
  'tenantId' | 'url' | 'module' | 'scheduled' | 'frequency' | 'recipients' | 'queryParams' | 'postParams'
>;

/** The report path of a module: the calls report, or a queue report (reporting.md R24). */
export const pathOfModule = (module: string): string | undefined =>
  module === 'calls' ? CALLS_REPORT_PATH : isQueueReport(module) ? QUEUE_REPORTS[module].path : undefined;

/**
 * The rules of a saved filter that its schema cannot express, for the API (create, and PATCH on the
 * resulting filter) and for seeding alike: one sentence per problem, naming the field.
 * - a scheduled filter needs a frequency and recipients;
 * - `url` names the calls report, and its query string, `queryParams` (text, as a query string is) and
 *   `postParams` (a JSON body) use only the report's filters, with valid values;
 * - a tenantId among those filters is the filter's own.
 */
export function savedFilterProblems(validator: Validator, f: RuleInput): string[] {
  const problems: string[] = [];
  if (f.scheduled === 1) {
    if (!f.frequency) problems.push('frequency is required when scheduled is 1');
    if (!f.recipients?.trim()) problems.push('recipients is required when scheduled is 1');
  }
  const format = isObject(f.postParams) ? f.postParams.format : undefined;
  if (format !== undefined && !(ATTACHMENT_FORMATS as readonly unknown[]).includes(format))
    problems.push(`postParams.format must be one of ${ATTACHMENT_FORMATS.join(', ')}`);
  if (isQueueReport(f.module)) return [...problems, ...queueReportProblems(validator, f)];
  const [path = '', query] = splitUrl(f.url);
  if (path.replace(/\/$/, '') !== CALLS_REPORT_PATH) {
    problems.push(`url must name the calls report ${CALLS_REPORT_PATH} (a path, optionally with a query string)`);
  } else if (query !== undefined) {
    problems.push(...filterProblems('url query ', f.tenantId, () => validator.text('calls-query', queryObject(query))));
  }
  if (isObject(f.queryParams)) {
    const params = f.queryParams;
    problems.push(...filterProblems('queryParams.', f.tenantId, () => validator.text('calls-query', params)));
  }
  if (isObject(f.postParams)) {
    const { format: _format, ...params } = structuredClone(f.postParams); // validation fills in defaults; the stored value stays as given
    problems.push(...filterProblems('postParams.', f.tenantId, () => validator.body('calls-query', params)));
  }
  return problems;
}

/**
 * A queue report's filter (reporting.md R24): its url is the report's path, its filters are the report's request
 * in postParams (queueId required; startDate and endDate, when given, are replaced by each run's period), and it
 * has no query string or queryParams (the queue reports take a JSON body).
 */
function queueReportProblems(validator: Validator, f: RuleInput): string[] {
  const report = QUEUE_REPORTS[f.module as keyof typeof QUEUE_REPORTS];
  const problems: string[] = [];
  const [path = '', query] = splitUrl(f.url);
  if (path.replace(/\/$/, '') !== report.path || query !== undefined)
    problems.push(`url must name the ${f.module} report ${report.path} (a path without a query string: its filters are in postParams)`);
  if (f.queryParams !== undefined && f.queryParams !== null && !(isObject(f.queryParams) && Object.keys(f.queryParams).length === 0))
    problems.push(`queryParams must be empty: the ${f.module} report takes its filters in postParams`);
  if (!isObject(f.postParams)) return [...problems, `postParams must hold the ${f.module} report's request (at least queueId)`];
  const { format: _format, ...params } = structuredClone(f.postParams);
  try {
    validator.body(report.schema, { startDate: '2026-01-01', endDate: '2026-01-01', ...params });
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 400) throw err;
    problems.push(...(err.validationErrors ?? [err.message]).map((p) => `postParams.${p}`));
  }
  return problems;
}

/** The queue ids a queue report's filter names (postParams.queueId, a list or one id), for its tenant check. */
export function queueIdsOf(f: Pick<SavedFilterInput, 'module' | 'postParams'>): number[] {
  if (!isQueueReport(f.module) || !isObject(f.postParams)) return [];
  const ids = f.postParams.queueId;
  return (Array.isArray(ids) ? ids : [ids]).filter((id): id is number => Number.isInteger(id));
}

export function splitUrl(url: string): [string, string | undefined] {
  const at = url.indexOf('?');
  return at < 0 ? [url, undefined] : [url.slice(0, at), url.slice(at + 1)];
}

/** A query string as Express reads one: a name given twice becomes an array (which the schema refuses). */
export function queryObject(query: string): Record<string, string | string[]> {
  const params = new URLSearchParams(query);
  return Object.fromEntries(
    [...new Set(params.keys())].map((k) => {
      const all = params.getAll(k);
      return [k, all.length === 1 ? (all[0] as string) : all];
    }),
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The problems of calls-report filters, each led by where they are; a tenantId must be the filter's. */
function filterProblems(lead: string, tenantId: number, validate: () => { tenantId?: number }): string[] {
  try {
    const valid = validate();
    return valid.tenantId === undefined || valid.tenantId === tenantId
      ? []
      : [`${lead}tenantId must be the filter's tenantId (${tenantId})`];
  } catch (err) {
    if (err instanceof AppError && err.status === 400) return (err.validationErrors ?? [err.message]).map((p) => `${lead}${p}`);
    throw err;
  }
}
