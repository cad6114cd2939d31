import type { Sqlite } from '../../db/database';
import { tenantsScope } from '../../access/scope';
import { recomputeHours } from './derived-hours';
import { PbxDirectory, rawOrNull } from './directory';
import { pbxLogs } from './pbx-logs.repository';
import { processPending } from './pending';

/**
 * After a tenant's extensions changed (added, removed, renamed, aliases edited): every stored line of its
 * queues and every CDR row of the tenant resolves its agent name again (reporting.md R14: reports always
 * reflect the current aliases), and what was derived from the lines whose agent changed is rebuilt: the
 * per-hour talk sums, membership and pause intervals, the outbound sums. The lines' own names are kept
 * (raw_agent), so nothing is lost whichever way the names change. A CDR row's tenant and direction stay
 * as they were decided at its import. Returns the number of distinct names whose agent changed.
 */
export function agentIdentitiesChanged(sqlite: Sqlite, tenantId: number): number {
  const repo = pbxLogs(sqlite);
  const changed = sqlite
    .transaction(() => {
      const directory = new PbxDirectory(sqlite, tenantsScope([tenantId]));
      let names = 0;
      for (const queue of directory.queuesOfTenant(tenantId)) {
        let queueChanged = false;
        for (const row of repo.eventAgents.all({ queue })) {
          const ids = directory.agentIds(tenantId, row.name);
          if (ids.agent === row.agent) continue;
          repo.reassignAgent.run({ queue, raw: row.raw, agent: ids.agent, rawAgent: rawOrNull(ids) });
          queueChanged = true;
          names++;
        }
        if (!queueChanged) continue;
        const { first, last } = repo.anchorHours.get({ queue }) ?? { first: null, last: null };
        if (first !== null && last !== null)
          recomputeHours(
            sqlite,
            queue,
            Array.from({ length: last - first + 1 }, (_, i) => first + i),
          );
        // The intervals are replayed, and the outbound sums recomputed, by processPending below.
        repo.mark.run({ queue, maxTime: 0, rebuildFrom: 0, outboundFrom: 0 });
      }
      for (const row of repo.callAgents.all({ tenant: tenantId })) {
        const ids = directory.agentIds(tenantId, row.name);
        if (ids.agent === row.agent) continue;
        const ext = directory.extensionOf(tenantId, row.name)?.extNum ?? null;
        const args = { tenant: tenantId, raw: row.raw, agent: ids.agent, rawAgent: rawOrNull(ids), ext };
        (row.side === 'src' ? repo.reassignSrc : repo.reassignDst).run(args);
        names++;
        for (const queue of directory.queuesOfTenant(tenantId)) repo.mark.run({ queue, maxTime: 0, rebuildFrom: null, outboundFrom: 0 });
      }
      return names;
    })
    .immediate();
  processPending(sqlite);
  return changed;
}
