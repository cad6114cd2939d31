import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Db } from '../../db/database';
import type { Database } from '../../db/schema';
import type { CdrCallTable } from '../../db/schema-reporting';
import { windowed } from '../../access/paging';
import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';

/** Which calls of which tenants: the scope, and within it per group of tenants (null: every tenant) a start range. */
export interface CallsWhere {
  readonly scope: TenantScope;
  readonly tenants: readonly { readonly tenantIds: readonly number[] | null; readonly from?: number; readonly to?: number }[];
  readonly direction?: string;
  readonly disposition?: string;
  readonly extension?: number;
  /** Digits that must occur in the source's or the destination's digits. */
  readonly digits?: string;
  readonly queueId?: number;
}

function where(w: CallsWhere) {
  return (eb: ExpressionBuilder<Database, 'cdr_calls'>) => {
    const tenantParts = w.tenants.map((t) =>
      eb.and([
        ...(t.tenantIds ? [eb('tenant_id', 'in', t.tenantIds.length > 0 ? [...t.tenantIds] : [0])] : []),
        ...(t.from !== undefined ? [eb('start_at', '>=', t.from)] : []),
        ...(t.to !== undefined ? [eb('start_at', '<', t.to)] : []),
      ]),
    );
    return eb.and([
      tenantIn(w.scope),
      eb.or(tenantParts),
      ...(w.direction ? [eb('direction', '=', w.direction as 'inbound')] : []),
      ...(w.disposition ? [eb('disposition', '=', w.disposition)] : []),
      ...(w.extension !== undefined ? [eb.or([eb('src_ext', '=', w.extension), eb('dst_ext', '=', w.extension)])] : []),
      ...(w.digits ? [eb.or([eb('source_digits', 'like', `%${w.digits}%`), eb('destination_digits', 'like', `%${w.digits}%`)])] : []),
      ...(w.queueId !== undefined ? [eb('queue_id', '=', w.queueId)] : []),
    ]);
  };
}

export async function countCalls(db: Db, w: CallsWhere): Promise<number> {
  const row = await db
    .selectFrom('cdr_calls')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(where(w))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Newest first (by start, then id), `limit` records from `offset`; limit null: all. */
export async function listCalls(db: Db, w: CallsWhere, offset: number, limit: number | null): Promise<Selectable<CdrCallTable>[]> {
  return windowed(db.selectFrom('cdr_calls').selectAll().where(where(w)).orderBy('start_at', 'desc').orderBy('id', 'desc'), {
    limit,
    offset,
  }).execute();
}

/** The next `limit` records, newest first, after the record (start, id) `before` (none: from the newest): an export's batch. */
export async function callsBefore(
  db: Db,
  w: CallsWhere,
  before: { start: number; id: number } | null,
  limit: number,
): Promise<Selectable<CdrCallTable>[]> {
  let q = db.selectFrom('cdr_calls').selectAll().where(where(w));
  if (before)
    q = q.where((eb) => eb.or([eb('start_at', '<', before.start), eb.and([eb('start_at', '=', before.start), eb('id', '<', before.id)])]));
  return windowed(q.orderBy('start_at', 'desc').orderBy('id', 'desc'), { limit, offset: 0 }).execute();
}
