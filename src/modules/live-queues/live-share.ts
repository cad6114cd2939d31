import type { AmiStatus } from '../../ami/ami-client';
import type { Coordinator } from '../../db/coordination';
import type { Db } from '../../db/database';
import { pbxNameKey } from '../../pbx-name';
import type { LiveCaller, LiveMember, LiveQueue } from './live-state';
import {
  actionOutcome,
  askAction,
  claimAction,
  finishAction,
  liveStateOf,
  pendingActions,
  publishLiveState,
} from './live-share.repository';

/*
 * The live layer across instances on one PostgreSQL database (docs/design/postgresql.md §5.4). One instance holds
 * each PBX's AMI link (the lock `ami:<label>`, src/db/coordination.ts); it writes what it knows of the PBX into
 * `live_state` and signals `tars_live` ("this PBX changed, at this version": never the state itself). The others
 * read the row when signalled and serve the live routes and streams from it. An agent action asked of one of them
 * is written to `ami_actions` and signalled on `tars_ami_action`; the holder carries it out and signals
 * `tars_ami_result`.
 */

export interface LiveSharing {
  readonly coordinator: Coordinator;
  readonly db: Db;
  /** This instance in `live_state.holder`: host and pid. */
  readonly holder: string;
  /** How often an instance tries to take a link it does not hold, and the holder makes sure it still holds it. Default 2 s. */
  readonly campaignMs?: number;
  /** How long a change waits for others before it is written (one write for a burst of events). Default 50 ms. */
  readonly publishDelayMs?: number;
}

export const LIVE_CHANNEL = 'tars_live';
export const ACTION_CHANNEL = 'tars_ami_action';
export const RESULT_CHANNEL = 'tars_ami_result';

/** The lock that makes an instance the holder of a PBX's AMI link. */
export const linkLock = (label: string) => `ami:${label}`;

/** A signal on LIVE_CHANNEL: which PBX, its new version, and which queues changed (null: all of them). */
export interface LiveSignal {
  readonly pbx: string;
  readonly version: number;
  readonly queues: readonly string[] | null;
}

/** NOTIFY's payload must stay under 8000 bytes: a signal naming many queues says "all" instead. */
const MAX_SIGNAL = 7000;

export function signalText(signal: LiveSignal): string {
  const text = JSON.stringify(signal);
  return text.length <= MAX_SIGNAL ? text : JSON.stringify({ ...signal, queues: null });
}

export function readSignal(text: string): LiveSignal | undefined {
  try {
    const s = JSON.parse(text) as LiveSignal;
    return typeof s.pbx === 'string' && Number.isInteger(s.version) ? s : undefined;
  } catch {
    return undefined;
  }
}

/** What a published PBX says besides its queues. */
export interface SharedLink {
  readonly status: AmiStatus;
  readonly lastEventAt: Date | undefined;
  readonly snapshotAt: Date | undefined;
}

type Stored<T> = { [K in keyof T]: T[K] extends Date ? number : T[K] extends Date | undefined ? number | null : T[K] };

interface StoredQueue {
  readonly name: string;
  readonly strategy: string;
  readonly serviceLevel: number;
  readonly members: Stored<LiveMember>[];
  readonly callers: Stored<LiveCaller>[];
}

/** The queues as JSON: maps as arrays, times as epoch milliseconds. */
export function queuesText(queues: ReadonlyMap<string, LiveQueue>): string {
  const stored: StoredQueue[] = [...queues.values()].map((q) => ({
    name: q.name,
    strategy: q.strategy,
    serviceLevel: q.serviceLevel,
    members: [...q.members.values()].map((m) => ({
      ...m,
      stateSince: m.stateSince.getTime(),
      pausedSince: m.pausedSince?.getTime() ?? null,
    })),
    callers: [...q.callers.values()].map((c) => ({ ...c, since: c.since.getTime() })),
  }));
  return JSON.stringify(stored);
}

/** The queues `queuesText` wrote, keyed as LiveState keys them (the name without case). */
export function readQueues(text: string): Map<string, LiveQueue> {
  const stored = JSON.parse(text) as StoredQueue[];
  return new Map(
    stored.map((q) => [
      pbxNameKey(q.name),
      {
        name: q.name,
        strategy: q.strategy,
        serviceLevel: q.serviceLevel,
        members: new Map(
          q.members.map((m): [string, LiveMember] => [
            m.interface,
            { ...m, stateSince: new Date(m.stateSince), pausedSince: m.pausedSince === null ? undefined : new Date(m.pausedSince) },
          ]),
        ),
        callers: new Map(q.callers.map((c): [string, LiveCaller] => [c.uniqueid, { ...c, since: new Date(c.since) }])),
      },
    ]),
  );
}

const linkText = (s: AmiStatus) =>
  JSON.stringify({ state: s.state, since: s.since.getTime(), reason: s.reason ?? null, banner: s.banner ?? null });

function readLink(text: string): AmiStatus {
  const l = JSON.parse(text) as { state: AmiStatus['state']; since: number; reason: string | null; banner: string | null };
  return { state: l.state, since: new Date(l.since), reason: l.reason ?? undefined, banner: l.banner ?? undefined };
}

/** A published PBX as a follower reads it. */
export interface PublishedPbx extends SharedLink {
  readonly version: number;
  readonly holder: string;
  readonly queues: Map<string, LiveQueue>;
}

/** Writes what the holder knows of a PBX at `version`; false when a newer version is already there (this holder is late). */
export async function publish(
  sharing: LiveSharing,
  pbx: string,
  version: number,
  link: SharedLink,
  queues: ReadonlyMap<string, LiveQueue>,
  changed: readonly string[] | null,
  now: number,
): Promise<boolean> {
  const written = await publishLiveState(sharing.db, {
    pbx,
    version,
    holder: sharing.holder,
    link: linkText(link.status),
    last_event_at: link.lastEventAt?.getTime() ?? null,
    snapshot_at: link.snapshotAt?.getTime() ?? null,
    queues: queuesText(queues),
    updated_at: now,
  });
  if (written) await sharing.coordinator.notify(LIVE_CHANNEL, signalText({ pbx, version, queues: changed }));
  return written;
}

export async function readPublished(db: Db, pbx: string): Promise<PublishedPbx | undefined> {
  const row = await liveStateOf(db, pbx);
  if (!row) return undefined;
  return {
    version: row.version,
    holder: row.holder,
    status: readLink(row.link),
    lastEventAt: row.last_event_at === null ? undefined : new Date(row.last_event_at),
    snapshotAt: row.snapshot_at === null ? undefined : new Date(row.snapshot_at),
    queues: readQueues(row.queues),
  };
}

/** An action carried out by the holder: how long the asker waits beyond the holder's own action timeout. */
const FORWARD_MARGIN_MS = 2_000;
const POLL_MS = 250;

/**
 * Asks the holder of `pbx`'s link to carry out an action and waits for its outcome: undefined when Asterisk
 * succeeded, Asterisk's error message when it refused; throws when no holder answered in time (the action then
 * expires: no holder carries it out later).
 */
export async function forwardAction(
  sharing: LiveSharing,
  pbx: string,
  fields: Readonly<Record<string, string | number>>,
  actionTimeoutMs: number,
  now: () => number,
): Promise<string | undefined> {
  const waitMs = actionTimeoutMs + FORWARD_MARGIN_MS;
  const id = await askAction(sharing.db, { pbx, fields, now: now(), expiresAt: now() + actionTimeoutMs });
  let wake: () => void = () => undefined;
  const stop = await sharing.coordinator.listen(RESULT_CHANNEL, (payload) => {
    if (payload === String(id)) wake();
  });
  try {
    await sharing.coordinator.notify(ACTION_CHANNEL, String(id));
    const end = Date.now() + waitMs;
    for (;;) {
      const outcome = await actionOutcome(sharing.db, id);
      if (outcome?.status === 'done') return outcome.error ?? undefined;
      const left = end - Date.now();
      if (left <= 0) throw new ForwardTimeout(pbx, waitMs);
      // The result's signal, or a look at the row every 250 ms (a signal lost with a session).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(POLL_MS, left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    await stop();
  }
}

export class ForwardTimeout extends Error {
  constructor(pbx: string, ms: number) {
    super(`the instance holding the link of ${pbx} did not answer within ${ms} ms`);
  }
}

/**
 * The holder's side: carries out the actions asked of the PBXs it holds (signalled, and looked for every
 * campaign tick in case a signal was missed), each once.
 */
export async function serveActions(
  sharing: LiveSharing,
  held: () => readonly string[],
  run: (pbx: string, fields: Record<string, string | number>) => Promise<string | undefined>,
  now: () => number,
  ids?: readonly number[],
): Promise<void> {
  const pbxs = held();
  for (const id of ids ?? (await pendingActions(sharing.db, pbxs, now()))) {
    const claimed = await claimAction(sharing.db, id, pbxs, now());
    if (!claimed) continue;
    const error = await run(claimed.pbx, claimed.fields).catch((err: Error) => err.message);
    await finishAction(sharing.db, id, error ?? null, now());
    await sharing.coordinator.notify(RESULT_CHANNEL, String(id));
  }
}
