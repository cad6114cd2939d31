import { tenantsScope } from '../../access/scope';
import { recomputeHours } from './derived-hours';
import { PbxDirectory, rawOrNull } from './directory';
import { processPending } from './pending';
import { importStore, type ImportTarget } from './stores';

/**
 * After a tenant's extensions changed (added, removed, renamed, aliases edited): every stored line of its
 * queues and every CDR row of the tenant resolves its agent name again (reporting.md R14: reports always
 * reflect the current aliases), and what was derived from the lines whose agent changed is rebuilt: the
 * per-hour talk sums, membership and pause intervals, the outbound sums. The lines' own names are kept
 * (raw_agent), so nothing is lost whichever way the names change. A CDR row's tenant and direction stay
 * as they were decided at its import. Returns the number of distinct names whose agent changed.
 */
export async function agentIdentitiesChanged(target: ImportTarget, tenantId: number): Promise<number> {
  const store = importStore(target);
  const changed = await store.transact(async () => {
    await store.othersWrote(); // (PostgreSQL: advances the import epoch, so importers drop their caches)
    const directory = new PbxDirectory(tenantsScope([tenantId]), store);
    await directory.reload();
    let names = 0;
    for (const queue of directory.queuesOfTenant(tenantId)) {
      let queueChanged = false;
      for (const row of await store.eventAgents(queue)) {
        const ids = await directory.resolveAgent(tenantId, row.name);
        if (ids.agent === row.agent) continue;
        await store.reassignAgent({ queue, raw: row.raw, agent: ids.agent, rawAgent: rawOrNull(ids) });
        queueChanged = true;
        names++;
      }
      if (!queueChanged) continue;
      const { first, last } = await store.anchorHours(queue);
      if (first !== null && last !== null)
        await recomputeHours(
          store,
          queue,
          Array.from({ length: last - first + 1 }, (_, i) => first + i),
        );
      // The intervals are replayed, and the outbound sums recomputed, by processPending below.
      await store.mark(queue, { maxTime: 0, rebuildFrom: 0, outboundFrom: 0 });
    }
    for (const row of await store.callAgents(tenantId)) {
      const ids = await directory.resolveAgent(tenantId, row.name);
      if (ids.agent === row.agent) continue;
      const ext = directory.extensionOf(tenantId, row.name)?.extNum ?? null;
      await store.reassignCall(row.side, { tenant: tenantId, raw: row.raw, agent: ids.agent, rawAgent: rawOrNull(ids), ext });
      names++;
      for (const queue of directory.queuesOfTenant(tenantId)) await store.mark(queue, { maxTime: 0, rebuildFrom: null, outboundFrom: 0 });
    }
    return names;
  });
  await processPending(store);
  return changed;
}
