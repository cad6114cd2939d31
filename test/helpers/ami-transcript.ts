import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseMessage, type AmiMessage } from '../../src/ami/ami-protocol';
import type { LiveQueue } from '../../src/modules/live-queues/live-state';
import { FIXTURES } from './fixtures';

/** One block of the recorded AMI transcript (test/fixtures/asterisk/README.md): a message received or an action sent. */
export interface TranscriptEntry {
  readonly dir: 'recv' | 'sent';
  readonly at: Date;
  /** The bytes as Asterisk wrote them (CRLF lines, a blank line after each message; the banner alone). */
  readonly text: string;
  readonly message: AmiMessage;
}

/** A recorded QueueStatus answer and where it stands in the stream of unsolicited events. */
export interface Checkpoint {
  /** How many events of `events` Asterisk had sent before it answered. */
  readonly after: number;
  readonly at: Date;
  /** QueueParams, QueueMember and QueueEntry, in the order Asterisk sent them. */
  readonly answer: readonly AmiMessage[];
}

export interface Transcript {
  readonly entries: readonly TranscriptEntry[];
  /** Every event received that answers no action: what a client that asked for nothing would have seen. */
  readonly events: readonly TranscriptEntry[];
  readonly checkpoints: readonly Checkpoint[];
}

let cached: Transcript | undefined;

/** The transcript of the real Asterisk 22 run, read once per test process (21 MB as text). */
export function amiTranscript(): Transcript {
  if (cached) return cached;
  const text = gunzipSync(readFileSync(join(FIXTURES, 'asterisk', 'ami-transcript.txt.gz'))).toString('utf8');
  const entries: TranscriptEntry[] = [];
  const marker = /^--- (recv|sent) (\S+)\r?\n/gm;
  let m: RegExpExecArray | null;
  let previous: { dir: 'recv' | 'sent'; at: Date; start: number } | undefined;
  const close = (end: number) => {
    if (!previous) return;
    const body = text.slice(previous.start, end);
    entries.push({ dir: previous.dir, at: previous.at, text: body, message: parseMessage(body) });
  };
  while ((m = marker.exec(text)) !== null) {
    close(m.index);
    previous = { dir: m[1] as 'recv' | 'sent', at: new Date(m[2] as string), start: marker.lastIndex };
  }
  close(text.length);

  const events: TranscriptEntry[] = [];
  const checkpoints: Checkpoint[] = [];
  const statusActions = new Set(
    entries.filter((e) => e.dir === 'sent' && e.message.Action === 'QueueStatus').map((e) => e.message.ActionID),
  );
  const answers = new Map<string, { after: number; at: Date; answer: AmiMessage[] }>();
  for (const e of entries) {
    if (e.dir !== 'recv') continue;
    const id = e.message.ActionID;
    if (id === undefined) {
      if (e.message.Event !== undefined) events.push(e);
      continue;
    }
    if (!statusActions.has(id)) continue;
    let a = answers.get(id);
    if (!a) answers.set(id, (a = { after: events.length, at: e.at, answer: [] }));
    if (e.message.Event !== undefined && e.message.Event !== 'QueueStatusComplete') a.answer.push(e.message);
  }
  checkpoints.push(...answers.values());
  cached = { entries, events, checkpoints };
  return cached;
}

/** What a QueueStatus answer says, in the terms the live tests compare: members with their state, callers with their place. */
export function fromAnswer(c: Checkpoint) {
  const queues: Record<string, { members: string[]; callers: string[] }> = {};
  const of = (q = '') => (queues[q] ??= { members: [], callers: [] });
  for (const m of c.answer) {
    if (m.Event === 'QueueParams') of(m.Queue);
    if (m.Event === 'QueueMember')
      of(m.Queue).members.push(`${m.Location} ${m.Name} status=${m.Status} inCall=${m.InCall} paused=${m.Paused} reason=${m.PausedReason}`);
    if (m.Event === 'QueueEntry') of(m.Queue).callers.push(`${m.Position} ${m.Uniqueid} ${m.CallerIDNum}`);
  }
  return sorted(queues);
}

/** The same, of the state the live layer keeps. */
export function fromState(queues: ReadonlyMap<string, LiveQueue>) {
  const out: Record<string, { members: string[]; callers: string[] }> = {};
  for (const q of queues.values())
    out[q.name] = {
      members: [...q.members.values()].map(
        (m) => `${m.interface} ${m.name} status=${m.status} inCall=${m.inCall ? 1 : 0} paused=${m.paused ? 1 : 0} reason=${m.pausedReason}`,
      ),
      callers: [...q.callers.values()].map((c) => `${c.position} ${c.uniqueid} ${c.callerIdNum}`),
    };
  return sorted(out);
}

const sorted = (queues: Record<string, { members: string[]; callers: string[] }>) =>
  Object.fromEntries(
    Object.entries(queues)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, q]) => [name, { members: [...q.members].sort(), callers: [...q.callers].sort() }]),
  );
