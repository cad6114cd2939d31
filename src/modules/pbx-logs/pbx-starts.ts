import type { ImportStore } from './import-store';

/**
 * The times a tenant's PBX (re)started its queues (QUEUESTART, CONFIGRELOAD; pbx_starts), from which a
 * static member's membership counts (reporting.md R15). Read once per import; a start it stores joins.
 */
export class PbxStarts {
  private readonly byTenant = new Map<number, number[]>();
  constructor(private readonly store: ImportStore) {}

  /** Reads the starts (again): before the first use, and after another writer committed. */
  async reload(): Promise<void> {
    const starts = await this.store.pbxStarts();
    this.byTenant.clear();
    for (const { tenantId, time } of starts) this.times(tenantId).push(time);
  }

  /** Stores a start; returns whether it was new. Must run inside the import's write transaction. */
  async add(tenantId: number, time: number): Promise<boolean> {
    if (!(await this.store.insertPbxStart(tenantId, time))) return false;
    const times = this.times(tenantId);
    times.push(time);
    times.sort((a, b) => a - b);
    return true;
  }

  /** The latest start at or before `time`, or undefined. */
  latest(tenantId: number, time: number): number | undefined {
    const times = this.byTenant.get(tenantId);
    if (!times) return undefined;
    let lo = 0;
    let hi = times.length; // binary search: the first start after `time`
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((times[mid] as number) <= time) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? undefined : times[lo - 1];
  }

  private times(tenantId: number): number[] {
    let times = this.byTenant.get(tenantId);
    if (!times) this.byTenant.set(tenantId, (times = []));
    return times;
  }
}
