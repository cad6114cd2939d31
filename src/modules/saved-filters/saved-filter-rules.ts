import { AppError } from '../../errors';
import type { Validator } from '../../validation/validation';
import type { SavedFilterInput } from './saved-filters.repository';

/** The report a saved filter of module `calls` runs (decisions.md §6b). */
export const CALLS_REPORT_PATH = '/v2/reporting/calls';

type RuleInput = Pick<SavedFilterInput, 'tenantId' | 'url' | 'scheduled' | 'frequency' | 'recipients' | 'queryParams' | 'postParams'>;

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
    const params = structuredClone(f.postParams); // validation fills in defaults; the stored value stays as given
    problems.push(...filterProblems('postParams.', f.tenantId, () => validator.body('calls-query', params)));
  }
  return problems;
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
