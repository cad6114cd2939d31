import type { Kysely } from 'kysely';
import { neverReuseIds } from './never-reused-ids';

/**
 * The rest of the tables whose ids the API shows and that lose rows (a DELETE of the API, or a tenant's cascade):
 * branches and phone numbers (DELETE /v2/admin/branches/{id}, /v2/admin/phone-numbers/{id}), wallboard links
 * (revoked by id), and saved filters, their runs and webhook deliveries (gone with their tenant or webhook; a
 * delivery is retried by its id). The first migration of this kind (2026-11-27T1000) left them out, so a deleted
 * newest branch's id was given to the next branch (docs/api.md: ids are never reused).
 */
const TABLES = ['branches', 'phone_numbers', 'wallboard_links', 'saved_filters', 'report_runs', 'webhook_deliveries'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await neverReuseIds(db, TABLES);
}
