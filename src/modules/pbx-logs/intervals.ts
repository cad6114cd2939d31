import type { Sqlite } from '../../db/database';
import { memberStep, type IntervalChange, type PairState } from './member-state';

interface OpenRows {
  session: number | null;
  pause: number | null;
}

/**
 * Writes membership and pause intervals (agent_sessions, agent_pauses) as membership events arrive in
 * time order. The open rows of each (queue, agent) pair are the state of reporting.md R10; they are read
 * once per pair and then kept in memory until `forget()` (another process wrote to the database).
 */
export class IntervalWriter {
  private readonly pairs = new Map<string, OpenRows>();
  private readonly s;

  constructor(private readonly sqlite: Sqlite) {
    this.s = {
      openSession: sqlite.prepare('SELECT id FROM agent_sessions WHERE queue_id = ? AND agent = ? AND end_at IS NULL').pluck(),
      openPause: sqlite.prepare('SELECT id FROM agent_pauses WHERE queue_id = ? AND agent = ? AND end_at IS NULL').pluck(),
      insertSession: sqlite.prepare('INSERT INTO agent_sessions (queue_id, agent, start_at) VALUES (?, ?, ?)'),
      insertPause: sqlite.prepare('INSERT INTO agent_pauses (queue_id, agent, start_at, reason) VALUES (?, ?, ?, ?)'),
      closeSession: sqlite.prepare('UPDATE agent_sessions SET end_at = ? WHERE id = ?'),
      closePause: sqlite.prepare('UPDATE agent_pauses SET end_at = ? WHERE id = ?'),
    };
  }

  forget(): void {
    this.pairs.clear();
  }

  /** Applies one membership event; returns whether the membership itself (not only a pause) changed. */
  apply(queueId: number, agent: number, code: number, time: number, a: number, reason: string | null): boolean {
    if (agent === 0) return false; // NONE or empty changes no state (R10)
    const rows = this.rowsOf(queueId, agent);
    const state: PairState = { member: rows.session !== null, paused: rows.pause !== null };
    let membership = false;
    for (const change of memberStep(state, code, time, a, reason)) {
      this.write(rows, queueId, agent, change);
      membership ||= change.kind === 'openSession' || change.kind === 'closeSession';
    }
    return membership;
  }

  private rowsOf(queueId: number, agent: number): OpenRows {
    const key = `${queueId}:${agent}`;
    let rows = this.pairs.get(key);
    if (!rows) {
      const session = this.s.openSession.get(queueId, agent) as number | undefined;
      const pause = this.s.openPause.get(queueId, agent) as number | undefined;
      rows = { session: session ?? null, pause: pause ?? null };
      this.pairs.set(key, rows);
    }
    return rows;
  }

  private write(rows: OpenRows, queueId: number, agent: number, change: IntervalChange): void {
    switch (change.kind) {
      case 'openSession':
        rows.session = Number(this.s.insertSession.run(queueId, agent, change.time).lastInsertRowid);
        break;
      case 'openPause':
        rows.pause = Number(this.s.insertPause.run(queueId, agent, change.time, change.reason).lastInsertRowid);
        break;
      case 'closeSession':
        this.s.closeSession.run(change.time, rows.session);
        rows.session = null;
        break;
      case 'closePause':
        this.s.closePause.run(change.time, rows.pause);
        rows.pause = null;
        break;
    }
  }
}

/** The intervals of a queue replayed from all its membership events (in time order), for a rebuild. */
export function replayIntervals(events: Iterable<{ agent: number; event: number; time: number; a: number; reason: string | null }>) {
  const sessions: { agent: number; start: number; end: number | null }[] = [];
  const pauses: { agent: number; start: number; end: number | null; reason: string }[] = [];
  const open = new Map<number, { state: PairState; session?: (typeof sessions)[number]; pause?: (typeof pauses)[number] }>();
  for (const e of events) {
    if (e.agent === 0) continue;
    let pair = open.get(e.agent);
    if (!pair) open.set(e.agent, (pair = { state: { member: false, paused: false } }));
    for (const c of memberStep(pair.state, e.event, e.time, e.a, e.reason)) {
      if (c.kind === 'openSession') sessions.push((pair.session = { agent: e.agent, start: c.time, end: null }));
      else if (c.kind === 'openPause') pauses.push((pair.pause = { agent: e.agent, start: c.time, end: null, reason: c.reason }));
      else if (c.kind === 'closeSession' && pair.session) pair.session.end = c.time;
      else if (c.kind === 'closePause' && pair.pause) pair.pause.end = c.time;
    }
  }
  return { sessions, pauses };
}
