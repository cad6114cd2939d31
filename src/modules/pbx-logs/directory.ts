import type { Db } from '../../db/database';
import { inScope, type TenantScope } from '../../access/scope';
import { AgentNames, type DirectoryExtension, type ExtensionRef } from './agent-names';
import type { ImportStore, StoredExtension, StoredQueue } from './import-store';
import { directoryRows } from './pbx-logs.repository';
import { pbxNameKey } from '../../pbx-name';

export type { ExtensionRef };

export interface ResolvedAgent {
  readonly agent: number;
  readonly raw: number;
  /** The peerName of the extension the name resolves to; undefined when it names none. */
  readonly peer: string | undefined;
}

export interface QueueRef {
  readonly id: number;
  readonly tenantId: number;
  readonly name: string;
}

/** The name a line carried, when it is not the agent it resolved to (the raw_agent columns). */
export const rawOrNull = (ids: { agent: number; raw: number }): number | null => (ids.raw === ids.agent ? null : ids.raw);

/**
 * What an import maps log names to, read once per import (and again when another process changed the
 * database): queues by their queue_log name (without case, as Asterisk looks them up: reporting.md R2),
 * extensions by every name the PBX writes for their agent (R14, agent-names.ts), per tenant. Only the
 * tenants of `scope` are visible, so a caller who may not act in a tenant cannot write that tenant's data
 * (its queues and extensions look unknown). Agent names are interned as small integers (`agents`).
 */
export class PbxDirectory {
  private readonly queues = new Map<string, QueueRef>();
  private readonly queuesByTenant = new Map<number, number[]>();
  private readonly names = new Map<number, AgentNames>();
  private readonly agents = new Map<string, number>();
  private readonly resolved = new Map<number, Map<string, ResolvedAgent>>();

  /** `store`: where agent names are interned (the importers); the live layer, which only places calls, has none. */
  constructor(
    private readonly scope: TenantScope,
    private readonly store?: Pick<ImportStore, 'queues' | 'extensions' | 'agentId'>,
  ) {}

  /** The directory of the site's queues and extensions as they are now, read through Kysely (either engine); it interns no name. */
  static async read(db: Db, scope: TenantScope): Promise<PbxDirectory> {
    const rows = await directoryRows(db);
    const directory = new PbxDirectory(scope);
    directory.load(rows.queues, rows.extensions);
    return directory;
  }

  /** Reads the queues and extensions again through the store. */
  async reload(): Promise<void> {
    if (!this.store) throw new Error('PbxDirectory.reload: no store');
    this.load(await this.store.queues(), await this.store.extensions());
  }

  private load(queues: readonly StoredQueue[], extensions: readonly StoredExtension[]): void {
    this.queues.clear();
    this.queuesByTenant.clear();
    this.names.clear();
    this.resolved.clear();
    for (const q of queues.filter((q) => inScope(this.scope, q.tenantId))) {
      this.queues.set(pbxNameKey(q.logName), { id: q.id, tenantId: q.tenantId, name: q.name });
      this.queuesByTenant.set(q.tenantId, [...(this.queuesByTenant.get(q.tenantId) ?? []), q.id]);
    }
    const byTenant = new Map<number, DirectoryExtension[]>();
    for (const e of extensions.filter((e) => inScope(this.scope, e.tenantId))) {
      byTenant.set(e.tenantId, [...(byTenant.get(e.tenantId) ?? []), e]);
    }
    for (const [tenantId, extensions] of byTenant) this.names.set(tenantId, new AgentNames(extensions));
  }

  queueByLogName(name: string): QueueRef | undefined {
    return this.queues.get(pbxNameKey(name));
  }

  queuesOfTenant(tenantId: number): readonly number[] {
    return this.queuesByTenant.get(tenantId) ?? [];
  }

  /** The tenants in scope that have queues. */
  tenantsWithQueues(): number[] {
    return [...this.queuesByTenant.keys()];
  }

  /** The tenants in scope (those with extensions). */
  tenants(): number[] {
    return [...this.names.keys()];
  }

  /** The extension an agent string or a channel's agent names in a tenant (R14), if any. */
  extensionOf(tenantId: number, agent: string): ExtensionRef | undefined {
    return this.names.get(tenantId)?.resolve(agent);
  }

  extensionByNumber(tenantId: number, extNum: string): ExtensionRef | undefined {
    return this.names.get(tenantId)?.byNumber(extNum);
  }

  /** The tenants (in scope) with an extension of this number. */
  tenantsOfExtNumber(extNum: string): number[] {
    return [...this.names].filter(([, names]) => names.byNumber(extNum)).map(([tenantId]) => tenantId);
  }

  /** The tenants (in scope) in which this agent string names an extension. */
  tenantsOfAgent(agent: string): number[] {
    if (agent === '') return [];
    return [...this.names].filter(([, names]) => names.resolve(agent)).map(([tenantId]) => tenantId);
  }

  /**
   * An agent string of a tenant resolved (R14), when it was resolved before (else `resolveAgent`): `raw` the
   * interned string itself, `agent` the interned peerName of the extension it names (the string itself when it
   * names none; 0 for ""), `peer` that peerName. Kept per tenant and name: an import asks for the same few hundred
   * names millions of times.
   */
  agentIds(tenantId: number, name: string): ResolvedAgent | undefined {
    return this.resolved.get(tenantId)?.get(name);
  }

  /** agentIds, resolving (and interning) the name the first time. Must run inside the import's write transaction. */
  async resolveAgent(tenantId: number, name: string): Promise<ResolvedAgent> {
    let byName = this.resolved.get(tenantId);
    if (!byName) this.resolved.set(tenantId, (byName = new Map()));
    let r = byName.get(name);
    if (r === undefined) {
      const raw = await this.agentId(name);
      const peer = this.extensionOf(tenantId, name)?.peer;
      r = { raw, agent: peer === undefined || peer === name ? raw : await this.agentId(peer), peer };
      byName.set(name, r);
    }
    return r;
  }

  /** The interned id of an agent name; 0 for "". Must run inside the import's write transaction. */
  async agentId(peer: string): Promise<number> {
    if (peer === '') return 0;
    let id = this.agents.get(peer);
    if (id === undefined) {
      if (!this.store) throw new Error('PbxDirectory.agentId: no store');
      id = await this.store.agentId(peer);
      this.agents.set(peer, id);
    }
    return id;
  }
}
