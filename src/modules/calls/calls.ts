import type { SchemaTypes } from '../../validation/schema-types';
import type { Selectable } from 'kysely';
import type { CdrCallTable } from '../../db/schema-reporting';

/** The filters of the calls report (schemas/calls-query.json): query of GET, body of POST, a saved filter's params. */
export interface CallsFilters {
  tenantId?: number;
  startDate?: string;
  endDate?: string;
  direction?: 'inbound' | 'outbound' | 'internal';
  disposition?: 'ANSWERED' | 'NO ANSWER' | 'BUSY' | 'FAILED';
  extension?: number;
  number?: string;
  queueId?: number;
  page?: number;
  recordsPerPage?: number;
  paginated?: number;
}

/** A call record of the calls report (decisions.md §6b); times ISO 8601 UTC. */
export type CallRecord = SchemaTypes['call-record'];

export interface CallsPage {
  records: CallRecord[];
  page: number;
  maxPage: number;
  total: number;
}

const iso = (t: number) => new Date(t * 1000).toISOString();

export function toCallRecord(row: Selectable<CdrCallTable>): CallRecord {
  return {
    id: row.id,
    uniqueId: row.unique_id,
    start: iso(row.start_at),
    answer: row.answer_at === null ? null : iso(row.answer_at),
    end: iso(row.end_at),
    direction: row.direction,
    source: row.source,
    destination: row.destination,
    callerName: row.caller_name,
    extension: row.extension,
    queueId: row.queue_id,
    duration: row.duration,
    billsec: row.billsec,
    disposition: row.disposition,
  };
}
