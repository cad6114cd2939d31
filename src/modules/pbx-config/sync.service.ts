import { createHash } from 'node:crypto';
import type { Caller } from '../../access/caller';
import { requireTenant } from '../../access/scope';
import { transaction, type Db } from '../../db/database';
import type { AnyDatabase } from '../../db/engine';
import { conflict, forbidden } from '../../errors';
import type { Config } from '../../config';
import type { SchemaTypes } from '../../validation/schema-types';
import { AsteriskConfigError } from './asterisk-conf';
import { readSiteConfig, type SiteConfig as Site } from './site-config';
import { extensionsOfTenant, type ExtensionRow } from '../extensions/extensions.repository';
import { agentNameOwners, changeExtension, createExtension } from '../extensions/extensions.service';
import { parseAliases, reResolveAgents } from '../pbx-logs/pbx-logs.service';
import { findQueues, membersOf, queueByLogName } from '../queues/queues.repository';
import { changeQueue, createQueue, type QueueCreate } from '../queues/queues.service';
import { getTenantRef } from '../tenants/tenants.repository';
import type { SiteConfig, SiteExtension, SiteQueue } from './site-config';
import { pbxNameKey, samePbxName } from '../../pbx-name';
import { isPbxName, PBX_NAME_RULE } from '../../text-rules';

/**
 * `tars pbx sync` (docs/pbx-config.md): what the PBX's configuration says against what a tenant's directory
 * has, as a plan of creations and changes, applied in one transaction. It adds and changes, never removes: an
 * extension, alias, queue or member the configuration does not name stays (it may come from AMI, the API or
 * an admin), and the plan says how many were left alone. Running it again after applying plans nothing. The plan
 * is applied through the extensions and queues services (their rules, their checks), in one transaction.
 */

/** What the sync uses: the database, and its raw connection for the stored lines to resolve their agents again. */
export interface SyncDeps {
  readonly db: Db;
  readonly database: AnyDatabase;
}

export interface PlannedExtension {
  readonly action: 'create' | 'change';
  readonly extNum: number;
  readonly peerName: string;
  readonly extName: string;
  readonly agentAliases: string[];
  /** For a change: what changes, in words. */
  readonly changes: string[];
  readonly id?: number;
}

export interface PlannedQueue {
  readonly action: 'create' | 'change';
  readonly logName: string;
  readonly name: string;
  readonly number: string;
  readonly ringStrategy: string;
  /** Its service level threshold (reporting.md R19): the configuration's, else the stored one (30 for a new queue). */
  readonly serviceLevelSeconds: number;
  /** Extension numbers of its static members. */
  readonly members: number[];
  readonly changes: string[];
  readonly id?: number;
}

export interface SyncPlan {
  readonly tenantId: number;
  readonly extensions: PlannedExtension[];
  readonly queues: PlannedQueue[];
  /** Records the configuration names that need no change. */
  readonly unchanged: { extensions: number; queues: number };
  /** What the configuration says that the sync does not act on, and why (a member of no extension, a name taken). */
  readonly notes: string[];
}

/**
 * A name of the configuration that the directory may keep: one line without `|` (common#/$defs/pbxName, the rule of
 * the API for the same fields), since it goes back to the PBX in AMI headers and is written into queue_log as one
 * field. Another is left out, with a note.
 */
function keepable(name: string, what: string, notes: string[]): boolean {
  if (isPbxName(name)) return true;
  notes.push(`${what} ${JSON.stringify(name)} is left out: a name kept for the PBX ${PBX_NAME_RULE}`);
  return false;
}

/** A site extension as a directory record: without a device of its own, its first interface is its peerName. */
function wanted(e: SiteExtension, notes: string[]): { peerName: string; extName: string | null; aliases: string[] } {
  const what = `extension ${e.extNum}'s`;
  const devices = e.agentAliases.filter((a) => keepable(a, `${what} alias`, notes));
  const own = e.peerName !== null && keepable(e.peerName, `${what} peerName`, notes) ? e.peerName : null;
  const peerName = own ?? devices.find((a) => a.includes('/')) ?? `Local/${e.extNum}`;
  const extName = e.extName !== null && keepable(e.extName, `${what} name`, notes) ? e.extName : null;
  return { peerName, extName, aliases: devices.filter((a) => a !== peerName) };
}

function planExtensions(site: SiteConfig, current: ExtensionRow[], notes: string[]) {
  const byNum = new Map(current.map((e) => [e.ext_num, e]));
  // Every agent name's key (pbxNameKey) in the directory → its extension number (one extension per name: the extensions service's rule).
  const owner = new Map([...agentNameOwners(current)].map(([name, e]) => [name, e.ext_num]));
  const out: PlannedExtension[] = [];
  let unchanged = 0;
  for (const e of site.extensions) {
    const extNum = Number(e.extNum);
    const want = wanted(e, notes);
    const free = (name: string) => {
      const o = owner.get(pbxNameKey(name));
      if (o === undefined || o === extNum) return true;
      notes.push(`${JSON.stringify(name)} is already extension ${o}'s name: not added to extension ${extNum}`);
      return false;
    };
    const have = byNum.get(extNum);
    if (!have) {
      if (!free(want.peerName)) continue;
      const aliases = want.aliases.filter(free);
      for (const n of [want.peerName, ...aliases]) owner.set(pbxNameKey(n), extNum);
      out.push({ action: 'create', extNum, peerName: want.peerName, extName: want.extName ?? '', agentAliases: aliases, changes: [] });
      continue;
    }
    const aliases = parseAliases(have.agent_aliases);
    const added = want.aliases.filter((a) => !samePbxName(a, have.peer_name) && !aliases.some((b) => samePbxName(a, b)) && free(a));
    for (const n of added) owner.set(pbxNameKey(n), extNum);
    const changes = added.map((a) => `alias + ${JSON.stringify(a)}`);
    const extName = want.extName !== null && want.extName !== have.ext_name ? want.extName : have.ext_name;
    if (extName !== have.ext_name) changes.push(`name ${JSON.stringify(have.ext_name)} → ${JSON.stringify(extName)}`);
    if (changes.length === 0) unchanged++;
    else
      out.push({ action: 'change', id: have.id, extNum, peerName: have.peer_name, extName, agentAliases: [...aliases, ...added], changes });
  }
  return { out, unchanged };
}

async function planQueues(db: Db, caller: Caller, tenantId: number, site: SiteConfig, notes: string[]) {
  const scope = requireTenant(caller.scope, tenantId);
  const current = await findQueues(db, scope);
  const members = await membersOf(
    db,
    current.map((q) => q.id),
  );
  const extIdToNum = new Map((await extensionsOfTenant(db, scope, tenantId)).map((e) => [e.id, e.ext_num]));
  const out: PlannedQueue[] = [];
  let unchanged = 0;
  for (const q of site.queues) {
    if (!keepable(q.logName, `queue (${q.file}:${q.line})`, notes)) continue;
    const wantMembers = memberNumbers(q, notes);
    const serviceLevel = serviceLevelOf(q, notes);
    const have = current.find((c) => samePbxName(c.log_name, q.logName));
    if (!have) {
      const elsewhere = await queueByLogName(db, q.logName);
      if (elsewhere)
        throw conflict(
          `Queue ${JSON.stringify(q.logName)} (${q.file}:${q.line}) is already queue ${elsewhere.id} of tenant ${elsewhere.tenant_id}`,
        );
      out.push({
        action: 'create',
        logName: q.logName,
        name: q.name,
        number: q.number ?? '',
        ringStrategy: q.strategy,
        serviceLevelSeconds: serviceLevel ?? DEFAULT_SERVICE_LEVEL,
        members: wantMembers,
        changes: [],
      });
      continue;
    }
    const haveMembers = (members.get(have.id) ?? []).map((id) => extIdToNum.get(id) as number);
    const addMembers = wantMembers.filter((m) => !haveMembers.includes(m));
    const changes = addMembers.map((m) => `member + extension ${m}`);
    if (q.strategy !== have.ring_strategy) changes.push(`strategy ${have.ring_strategy} → ${q.strategy}`);
    if (serviceLevel !== null && serviceLevel !== have.service_level_seconds)
      changes.push(`service level ${have.service_level_seconds} s → ${serviceLevel} s`);
    const number = q.number ?? have.number;
    if (number !== have.number) changes.push(`number ${JSON.stringify(have.number)} → ${JSON.stringify(number)}`);
    if (changes.length === 0) unchanged++;
    else
      out.push({
        action: 'change',
        id: have.id,
        logName: have.log_name,
        name: have.name,
        number,
        ringStrategy: q.strategy,
        serviceLevelSeconds: serviceLevel ?? have.service_level_seconds,
        members: [...haveMembers, ...addMembers],
        changes,
      });
  }
  return { out, unchanged };
}

/** A new queue's threshold when its configuration sets none (the hosted API's answeredUnder30). */
const DEFAULT_SERVICE_LEVEL = 30;
/** The most a queue's threshold may be in TARS (queue-create's schema). */
const MAX_SERVICE_LEVEL = 3600;

/** The configuration's `servicelevel` when TARS can keep it; a larger one is noted and left alone. */
function serviceLevelOf(q: SiteQueue, notes: string[]): number | null {
  const s = q.serviceLevelSeconds;
  if (s === null || s <= MAX_SERVICE_LEVEL) return s;
  notes.push(`${q.file}:${q.line}: servicelevel ${s} of ${q.logName} is more than ${MAX_SERVICE_LEVEL} seconds: not taken`);
  return null;
}

function memberNumbers(q: SiteQueue, notes: string[]): number[] {
  const nums: number[] = [];
  for (const m of q.members) {
    if (m.extNum === null) notes.push(`${m.file}:${m.line}: member ${m.interface} of ${q.logName} names no extension number: not added`);
    else if (!nums.includes(Number(m.extNum))) nums.push(Number(m.extNum));
  }
  return nums;
}

/** What applying would do to a tenant's directory (nothing is written). */
export async function planSync(deps: Pick<SyncDeps, 'db'>, caller: Caller, tenantId: number, site: SiteConfig): Promise<SyncPlan> {
  const { db } = deps;
  const scope = requireTenant(caller.scope, tenantId);
  await getTenantRef(db, scope);
  const notes = site.notes.map((n) => `${n.file}:${n.line}: ${n.message}`);
  const exts = planExtensions(site, await extensionsOfTenant(db, scope, tenantId), notes);
  const queues = await planQueues(db, caller, tenantId, site, notes);
  return { tenantId, extensions: exts.out, queues: queues.out, unchanged: { extensions: exts.unchanged, queues: queues.unchanged }, notes };
}

/**
 * Plans again inside one write transaction and applies that plan through the extensions and queues services;
 * once it is committed, the tenant's stored log lines resolve their agent names again.
 */
export async function applySync(
  deps: SyncDeps,
  caller: Caller,
  tenantId: number,
  site: SiteConfig,
  expectedHash?: string,
): Promise<SyncPlan> {
  const scope = requireTenant(caller.scope, tenantId);
  const plan = await transaction(deps.db, async (trx) => {
    const inTrx = { ...deps, db: trx };
    const plan = await planSync(inTrx, caller, tenantId, site);
    if (expectedHash !== undefined && planHash(plan) !== expectedHash)
      throw conflict(
        'The configuration directory or the directory of the tenant changed since this plan was shown: nothing was applied. Look at the new plan, then apply it.',
      );
    for (const e of plan.extensions) {
      if (e.action === 'create')
        await createExtension(inTrx, caller, {
          tenantId,
          extNum: e.extNum,
          peerName: e.peerName,
          extName: e.extName,
          agentAliases: e.agentAliases,
        });
      else await changeExtension(inTrx, caller, e.id as number, { extName: e.extName, agentAliases: e.agentAliases });
    }
    const idOf = new Map((await extensionsOfTenant(trx, scope, tenantId)).map((r) => [r.ext_num, r.id]));
    for (const q of plan.queues) {
      const members = q.members.map((n) => idOf.get(n) as number);
      const ringStrategy = q.ringStrategy as QueueCreate['ringStrategy'];
      const { serviceLevelSeconds } = q;
      if (q.action === 'create')
        await createQueue(inTrx, caller, {
          tenantId,
          name: q.name,
          logName: q.logName,
          number: q.number,
          ringStrategy,
          serviceLevelSeconds,
          members,
        });
      else await changeQueue(inTrx, caller, q.id as number, { number: q.number, ringStrategy, serviceLevelSeconds, members });
    }
    return plan;
  });
  if (plan.extensions.length > 0) await reResolveAgents(deps, caller, tenantId);
  return plan;
}

/** The plan as the CLI prints it. */
export function planText(plan: SyncPlan, applied: boolean): string {
  const verb = (action: string) => (applied ? (action === 'create' ? 'created' : 'changed') : `would ${action}`);
  const lines: string[] = [];
  for (const e of plan.extensions) {
    const what =
      e.action === 'create'
        ? `${e.peerName}${e.extName ? ` "${e.extName}"` : ''}${e.agentAliases.length ? `, aliases ${e.agentAliases.map((a) => JSON.stringify(a)).join(', ')}` : ''}`
        : e.changes.join('; ');
    lines.push(`${verb(e.action)} extension ${e.extNum}: ${what}`);
  }
  for (const q of plan.queues) {
    const what =
      q.action === 'create'
        ? `"${q.name}", ${q.ringStrategy}, service level ${q.serviceLevelSeconds} s, members ${q.members.join(', ') || 'none'}`
        : q.changes.join('; ');
    lines.push(`${verb(q.action)} queue ${q.logName}: ${what}`);
  }
  lines.push(
    `left alone: ${plan.unchanged.extensions} extensions and ${plan.unchanged.queues} queues already as configured (records the configuration does not name are never removed)`,
  );
  for (const n of plan.notes) lines.push(`note: ${n}`);
  if (!applied && (plan.extensions.length > 0 || plan.queues.length > 0))
    lines.push('Nothing was written: run again with --apply to apply this plan.');
  return lines.join('\n');
}

/** The SHA-256 of a plan (its canonical JSON): what the console shows is what it applies. */
export function planHash(plan: SyncPlan): string {
  return createHash('sha256').update(JSON.stringify(plan)).digest('hex');
}

export type ApiSyncPlan = SchemaTypes['pbx-sync-plan'];

/** What the console's Config sync uses besides SyncDeps: the configured directory. */
export interface ConfigSyncDeps extends SyncDeps {
  readonly config: Pick<Config, 'pbxConfigDir'>;
}

/** How to set the directory, as the screen shows it when none is set. */
export const CONFIG_DIR_HOW =
  "No PBX configuration directory is set. Start the server with TARS_PBX_CONFIG_DIR=/etc/asterisk (or --pbx-config-dir DIR): the directory of the PBX's queues.conf, pjsip.conf, sip.conf and extensions.conf, or a copy of it on this server.";

/**
 * The configured directory read as `tars pbx sync --from` reads it. A directory that cannot be read is the server's
 * state, not the request's: 409 naming every problem by file and line.
 */
function readConfigDir(dir: string): Site {
  try {
    return readSiteConfig(dir);
  } catch (err) {
    if (!(err instanceof AsteriskConfigError)) throw err;
    const problems = err.problems.map((p) => (p.line > 0 ? `${p.file}:${p.line}: ${p.reason}` : `${p.file}: ${p.reason}`));
    throw conflict(`TARS_PBX_CONFIG_DIR (${dir}) cannot be read as Asterisk's configuration: ${problems.join('; ')}`);
  }
}

/** The console's Config sync acts as `tars pbx sync` does, on a directory of the server: platform admins only. */
function requirePlatform(caller: Caller): void {
  if (!caller.scope.all) throw forbidden("Only a platform admin may plan or apply a sync of the PBX's configuration");
}

function toApiPlan(deps: ConfigSyncDeps, plan: SyncPlan, files: string[], applied: boolean): ApiSyncPlan {
  return {
    configured: true,
    configDir: deps.config.pbxConfigDir ?? null,
    how: null,
    tenantId: plan.tenantId,
    planHash: planHash(plan),
    applied,
    files,
    extensions: plan.extensions.map((e) => ({ ...e, id: e.id ?? null })),
    queues: plan.queues.map((q) => ({ ...q, id: q.id ?? null })),
    unchanged: plan.unchanged,
    notes: plan.notes,
  };
}

/**
 * GET /v2/pbx/config/plan: `tars pbx sync --from TARS_PBX_CONFIG_DIR --tenant ID`'s plan (nothing written), with
 * its hash; when no directory is set, how to set one.
 */
export async function planFromConfigDir(deps: ConfigSyncDeps, caller: Caller, tenantId: number): Promise<ApiSyncPlan> {
  requirePlatform(caller);
  const dir = deps.config.pbxConfigDir;
  if (dir === undefined) {
    requireTenant(caller.scope, tenantId);
    return {
      configured: false,
      configDir: null,
      how: CONFIG_DIR_HOW,
      tenantId,
      planHash: null,
      applied: false,
      files: [],
      extensions: [],
      queues: [],
      unchanged: { extensions: 0, queues: 0 },
      notes: [],
    };
  }
  const site = readConfigDir(dir);
  return toApiPlan(deps, await planSync(deps, caller, tenantId, site), site.files, false);
}

/**
 * POST /v2/pbx/config/apply: applies the plan whose hash the request gives (`tars pbx sync --apply`), or nothing
 * with 409 when the directory or the tenant's directory changed since it was shown.
 */
export async function applyFromConfigDir(deps: ConfigSyncDeps, caller: Caller, tenantId: number, hash: string): Promise<ApiSyncPlan> {
  requirePlatform(caller);
  const dir = deps.config.pbxConfigDir;
  if (dir === undefined) throw conflict(CONFIG_DIR_HOW);
  const site = readConfigDir(dir);
  return toApiPlan(deps, await applySync(deps, caller, tenantId, site, hash), site.files, true);
}
