import type { Caller } from '../../access/caller';
import { badRequest, conflict, forbidden, notFound, unavailable } from '../../errors';
import type { SchemaTypes } from '../../validation/schema-types';
import type { LiveQueues } from './live-queues';
import { extensionsByPeer, type ExtensionRow } from '../extensions/extensions.repository';
import { parseAliases } from '../pbx-logs/pbx-logs.service';
import { dndOfExtension, extensionOfUser } from './agents.repository';
import { AmiError } from '../../ami/ami-client';
import { AmiFormatError } from '../../ami/ami-protocol';
import type { LiveMember } from './live-state';
import { TenantView, type AgentPlace, type LiveDeps } from './live.service';
import { samePbxName } from '../../pbx-name';
import { isPbxName, PBX_NAME_RULE } from '../../text-rules';

/** The pause reason that marks an agent's DND in one queue (POST /v2/queues/agent-dnd). */
export const DND_REASON = 'DND';

/** The agent a request names, in the caller's reach, with its tenant's live view. */
interface Agent {
  readonly ext: ExtensionRow;
  readonly view: TenantView;
  readonly places: AgentPlace[];
}

/**
 * The agent of a peerName, if the caller may act for it: its own extension (the user's ext_id, or its peerName
 * in its own tenant) always; any agent of its tenants with queues.agents.manage. Another tenant's agent is
 * 404, as any record outside the caller's scope (decisions.md §2).
 */
async function agentFor(deps: LiveDeps, caller: Caller, peerName: string): Promise<Agent> {
  const { db } = deps;
  const found = await extensionsByPeer(db, caller.scope, peerName);
  const self = await extensionOfUser(db, caller.user.id);
  const own = found.find((e) => e.tenant_id === caller.user.tenant_id) ?? (found.length === 1 ? found[0] : undefined);
  if (!own) {
    if (found.length > 1) throw badRequest(`peerName ${peerName} names extensions of several tenants`);
    throw notFound(`Agent ${peerName}`);
  }
  const isSelf =
    own.tenant_id === caller.user.tenant_id &&
    (self?.ext_id === own.id || (!!self?.peer_name && samePbxName(self.peer_name, own.peer_name)));
  if (!isSelf && !caller.permissions.has('queues.agents.manage'))
    throw forbidden('You may act only for your own extension without queues.agents.manage');
  const view = await TenantView.load(deps, caller, own.tenant_id, { counters: false });
  return { ext: own, view, places: view.placesOf(deps.live, own.id) };
}

const isDnd = (m: LiveMember | undefined) => m?.paused === true && m.pausedReason === DND_REASON;

/**
 * How long an answer waits for the PBX to show what it answered Success to: Asterisk sends a QueueMember* event
 * after (or about when) it answers an action, and the live state follows the events.
 */
export const CONFIRM_WAIT_MS = 2000;

/**
 * Resolves once `shown()` holds, checked at each change of the live state, or after CONFIRM_WAIT_MS: the answer
 * then says the agent's state as the PBX shows it (what Asterisk confirmed), not as it was asked.
 */
async function confirmation(live: LiveQueues, shown: () => boolean): Promise<void> {
  if (shown()) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      live.off('change', check);
      live.off('stop', done);
      resolve();
    };
    const check = () => {
      if (shown()) done();
    };
    const timer = setTimeout(done, CONFIRM_WAIT_MS);
    live.on('change', check);
    live.on('stop', done);
  });
}

/** GET /v2/queues/agent-status: the mobile app's AgentQueues, from the PBX's state now. */
export async function agentStatus(deps: LiveDeps, caller: Caller, peerName: string) {
  const { ext, places } = await agentFor(deps, caller, peerName);
  const dnd = await dndOfExtension(deps.db, ext.id);
  const working = places.flatMap((p) => (p.member && !isDnd(p.member) ? [p.member] : []));
  const paused = working.find((m) => m.paused);
  return {
    name: ext.ext_name,
    peerName: ext.peer_name,
    extDND: String(dnd ?? 0),
    loggedIn: places.some((p) => p.member) ? 1 : 0,
    paused: paused ? 1 : 0,
    pausedReason: paused?.pausedReason ?? '',
    queues: places.map((p) => ({
      queueId: p.queue.id,
      queueName: p.queue.name,
      dnd: isDnd(p.member) ? 1 : 0,
      loggedIn: p.member !== undefined,
      agentPickup: 0,
    })),
    adminQueues: [],
  };
}

/**
 * What Asterisk answered one action: success, or its error message. An action that cannot be formatted (a value
 * stored before the single-line rule, a name too long for an AMI line) is sent to no queue: 409 naming the header.
 */
async function ask(place: AgentPlace, fields: Record<string, string>): Promise<string | undefined> {
  if (!place.pbx) return `no connected PBX has the queue ${place.queue.log_name}`;
  try {
    await place.pbx.action(fields);
    return undefined;
  } catch (err) {
    if (err instanceof AmiError) return err.message;
    if (err instanceof AmiFormatError)
      throw conflict(
        `The PBX cannot be sent ${fields.Action} for queue ${place.queue.name}: its ${err.message}. Correct the stored value first`,
      );
    throw err;
  }
}

/**
 * The agent's MemberName, which Asterisk writes into every queue_log line of the member as one field: its extName, or
 * its peerName without one. A name stored before the rule (the CLI, a fixture, pbx sync) that would not stay one
 * field is a 409 saying which, before anything is sent.
 */
function memberNameOf(ext: ExtensionRow): string {
  const name = ext.ext_name || ext.peer_name;
  if (!isPbxName(name))
    throw conflict(
      `Extension ${ext.ext_num}'s ${ext.ext_name ? 'extName' : 'peerName'} cannot be the MemberName sent to the PBX: it ${PBX_NAME_RULE}. ` +
        'Change it (PATCH /v2/extensions/{id}) first',
    );
  return name;
}

/** Actions on a connected PBX, or 503: nothing can be done while no PBX is connected. */
function requireLive(deps: LiveDeps): void {
  if (!deps.live.configured) throw unavailable('No PBX is configured for live queue actions (TARS_AMI_URL)');
  if (!deps.live.pbxs.some((p) => p.status.state === 'connected')) throw unavailable('The PBX is not connected; try again shortly');
}

/**
 * The interface a dynamic member is added with: one it already has in another queue, else a `Local/…` name of
 * its agent's aliases (what FreePBX and the tests' PBX use, `Local/201@from-queue/n`), else its peerName.
 */
function interfaceOf(ext: ExtensionRow, places: readonly AgentPlace[]): string {
  const live = places.find((p) => p.member)?.member?.interface;
  return live ?? parseAliases(ext.agent_aliases).find((a) => /^Local\/[^@]+@.+/.test(a)) ?? ext.peer_name;
}

const summary = (done: string[], failed: string[]) =>
  [done.length > 0 ? done.join('; ') : '', failed.length > 0 ? `not done: ${failed.join('; ')}` : ''].filter(Boolean).join('; ') ||
  'nothing to do';

/**
 * POST /v2/queues/agent-login: 1 adds the agent (QueueAdd) to each queue it is a configured member of and is
 * not in; 0 removes it (QueueRemove) from each queue it is a dynamic member of (a static member of
 * queues.conf cannot be removed: it stays, and the answer says so).
 */
export async function agentLogin(deps: LiveDeps, caller: Caller, body: SchemaTypes['agent-login-request']) {
  const { ext, places, view } = await agentFor(deps, caller, body.peerName);
  requireLive(deps);
  const done: string[] = [];
  const failed: string[] = [];
  const asked: number[] = []; // the queues Asterisk said Success for
  if (body.loggedIn === 1) {
    const targets = places.filter((p) => p.configured && !p.member);
    if (places.length === 0) throw conflict(`Extension ${ext.ext_num} is a member of no queue: make it one of a queue's members first`);
    const iface = interfaceOf(ext, places);
    const memberName = memberNameOf(ext);
    for (const p of targets) {
      const err = await ask(p, { Action: 'QueueAdd', Queue: p.queue.log_name, Interface: iface, MemberName: memberName });
      if (err) {
        failed.push(`${p.queue.name}: ${err}`);
      } else {
        done.push(`logged in to ${p.queue.name}`);
        asked.push(p.queue.id);
      }
    }
  } else {
    for (const p of places.filter((x) => x.member)) {
      const m = p.member as LiveMember;
      if (m.membership === 'static') {
        failed.push(`${p.queue.name}: a static member (queues.conf) cannot log out`);
        continue;
      }
      const err = await ask(p, { Action: 'QueueRemove', Queue: p.queue.log_name, Interface: m.interface });
      if (err) {
        failed.push(`${p.queue.name}: ${err}`);
      } else {
        done.push(`logged out of ${p.queue.name}`);
        asked.push(p.queue.id);
      }
    }
  }
  const now = () => view.placesOf(deps.live, ext.id);
  const member = (queueId: number) => now().some((p) => p.queue.id === queueId && p.member !== undefined);
  await confirmation(deps.live, () => asked.every((id) => member(id) === (body.loggedIn === 1)));
  return { message: summary(done, failed), loggedIn: now().some((p) => p.member) ? 1 : 0, peerName: ext.peer_name };
}

/**
 * POST /v2/queues/agent-pause: pauses or unpauses the agent (QueuePause, with the reason) in every queue it is
 * in, except those it set DND in.
 */
export async function agentPause(deps: LiveDeps, caller: Caller, body: SchemaTypes['agent-pause-request']) {
  const { ext, places, view } = await agentFor(deps, caller, body.peerName);
  requireLive(deps);
  const reason = body.paused === 1 ? (body.pauseReason ?? '') : '';
  if (reason === DND_REASON) throw badRequest(`pauseReason: "${DND_REASON}" is kept for POST /v2/queues/agent-dnd`);
  const targets = places.filter((p) => p.member && !isDnd(p.member));
  if (targets.length === 0) throw conflict(`Agent ${ext.peer_name} is logged in to no queue`);
  const done: string[] = [];
  const failed: string[] = [];
  const asked: number[] = [];
  for (const p of targets) {
    const fields: Record<string, string> = {
      Action: 'QueuePause',
      Queue: p.queue.log_name,
      Interface: (p.member as LiveMember).interface,
      Paused: body.paused === 1 ? 'true' : 'false',
    };
    if (reason !== '') fields.Reason = reason;
    const err = await ask(p, fields);
    if (err) failed.push(`${p.queue.name}: ${err}`);
    else {
      done.push(`${body.paused === 1 ? 'paused' : 'unpaused'} in ${p.queue.name}`);
      asked.push(p.queue.id);
    }
  }
  // The answer is the state as the PBX shows it once it has confirmed what it said Success to (or has not, in time).
  const now = () => view.placesOf(deps.live, ext.id).filter((p) => p.member && !isDnd(p.member));
  const shown = (m: LiveMember | undefined) =>
    m !== undefined && m.paused === (body.paused === 1) && (m.paused ? m.pausedReason === reason : true);
  await confirmation(deps.live, () => asked.every((id) => shown(now().find((p) => p.queue.id === id)?.member)));
  const paused = now().find((p) => p.member?.paused)?.member;
  return { message: summary(done, failed), paused: paused ? 1 : 0, peerName: ext.peer_name, pauseReason: paused?.pausedReason ?? '' };
}

/** POST /v2/queues/agent-dnd: DND in one queue is a pause in that queue with the reason DND (QueuePause). */
export async function agentDnd(deps: LiveDeps, caller: Caller, body: SchemaTypes['agent-dnd-request']) {
  const { ext, places, view } = await agentFor(deps, caller, body.peerName);
  requireLive(deps);
  if (!view.queues.some((q) => q.id === body.queueId)) throw notFound(`Queue ${body.queueId}`);
  const place = places.find((p) => p.queue.id === body.queueId);
  if (!place?.member) throw conflict(`Agent ${ext.peer_name} is not logged in to queue ${body.queueId}`);
  const fields: Record<string, string> = {
    Action: 'QueuePause',
    Queue: place.queue.log_name,
    Interface: place.member.interface,
    Paused: body.dnd === 1 ? 'true' : 'false',
  };
  if (body.dnd === 1) fields.Reason = DND_REASON;
  const err = await ask(place, fields);
  const member = () => view.placesOf(deps.live, ext.id).find((p) => p.queue.id === body.queueId)?.member;
  if (!err) await confirmation(deps.live, () => isDnd(member()) === (body.dnd === 1));
  const dnd = isDnd(member()) ? 1 : 0;
  return {
    message: err ? `not done: ${err}` : `DND ${body.dnd === 1 ? 'on' : 'off'} in ${place.queue.name}`,
    peerName: ext.peer_name,
    queueId: body.queueId,
    dnd,
  };
}
