import type { Sqlite } from '../../db/database';
import { inScope, type TenantScope } from '../../access/scope';
import { pbxLogs, type PbxLogs } from './pbx-logs.repository';

export interface QueueRef {
  readonly id: number;
  readonly tenantId: number;
}

export interface ExtensionRef {
  readonly extNum: number;
}

/**
 * What an import maps log names to, read once per import (and again when another process changed the
 * database): queues by their queue_log name, extensions by peer name and by number, per tenant. Only the
 * tenants of `scope` are visible, so a caller who may not act in a tenant cannot write that tenant's data
 * (its queues and extensions look unknown). Agent peer names are interned as small integers (`agents`).
 */
export class PbxDirectory {
  private readonly queues = new Map<string, QueueRef>();
  private readonly queuesByTenant = new Map<number, number[]>();
  private readonly byPeer = new Map<string, Map<number, ExtensionRef>>();
  private readonly extNums = new Map<number, Map<string, ExtensionRef>>();
  private readonly agents = new Map<string, number>();
  private readonly repo: PbxLogs;

  constructor(
    sqlite: Sqlite,
    private readonly scope: TenantScope,
  ) {
    this.repo = pbxLogs(sqlite);
    this.reload();
  }

  reload(): void {
    this.queues.clear();
    this.queuesByTenant.clear();
    this.byPeer.clear();
    this.extNums.clear();
    for (const q of this.repo.queues.all().filter((q) => inScope(this.scope, q.tenantId))) {
      this.queues.set(q.logName, { id: q.id, tenantId: q.tenantId });
      this.queuesByTenant.set(q.tenantId, [...(this.queuesByTenant.get(q.tenantId) ?? []), q.id]);
    }
    for (const e of this.repo.extensions.all().filter((e) => inScope(this.scope, e.tenantId))) {
      const ref = { extNum: e.extNum };
      if (!this.byPeer.has(e.peer)) this.byPeer.set(e.peer, new Map());
      this.byPeer.get(e.peer)?.set(e.tenantId, ref);
      if (!this.extNums.has(e.tenantId)) this.extNums.set(e.tenantId, new Map());
      this.extNums.get(e.tenantId)?.set(String(e.extNum), ref);
    }
  }

  queueByLogName(name: string): QueueRef | undefined {
    return this.queues.get(name);
  }

  queuesOfTenant(tenantId: number): readonly number[] {
    return this.queuesByTenant.get(tenantId) ?? [];
  }

  extensionByPeer(tenantId: number, peer: string): ExtensionRef | undefined {
    return this.byPeer.get(peer)?.get(tenantId);
  }

  extensionByNumber(tenantId: number, extNum: string): ExtensionRef | undefined {
    return this.extNums.get(tenantId)?.get(extNum);
  }

  /** The tenants (in scope) with an extension of this number. */
  tenantsOfExtNumber(extNum: string): number[] {
    return [...this.extNums].filter(([, byNum]) => byNum.has(extNum)).map(([tenantId]) => tenantId);
  }

  /** The tenants (in scope) with an extension of this peer name. */
  tenantsOfPeer(peer: string): number[] {
    return [...(this.byPeer.get(peer)?.keys() ?? [])];
  }

  /** The interned id of an agent peer name; 0 for "". Must run inside the import's write transaction. */
  agentId(peer: string): number {
    if (peer === '') return 0;
    let id = this.agents.get(peer);
    if (id === undefined) {
      this.repo.insertAgent.run({ peer });
      id = this.repo.agentId.get({ peer })?.id as number;
      this.agents.set(peer, id);
    }
    return id;
  }
}
