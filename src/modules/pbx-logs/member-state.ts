import { EV, showsMembership } from './queue-log-line';

/**
 * Membership and pause state of one (agent, queue) pair, reporting.md R10, as a pure state machine. Each
 * membership event yields the interval changes it causes; the importer writes them as they come, and a
 * rebuild replays every event of a queue through the same function.
 */
export interface PairState {
  /** A session is open: the agent is a member and available to take calls (not logged off). */
  member: boolean;
  paused: boolean;
  /** A member of the queue (added, or static), logged in or not; undefined: as `member`. */
  listed?: boolean;
  /** Logged in by AGENTLOGIN of queue NONE (R15); undefined: no login line seen for the agent. */
  loggedIn?: boolean;
}

export type IntervalChange =
  | { readonly kind: 'openSession'; readonly time: number }
  | { readonly kind: 'closeSession'; readonly time: number }
  | { readonly kind: 'openPause'; readonly time: number; readonly reason: string }
  | { readonly kind: 'closePause'; readonly time: number };

/** How the step reads a line besides its code and time. */
export interface StepContext {
  /** The reason of the pause the event opens (PAUSE, ADDMEMBER PAUSED), as QueueLogEvent has it. */
  readonly pauseReason: string | null;
  /**
   * When a line that only a member gets (showsMembership) finds the agent without membership, the agent is a
   * static member (R15) whose membership opens then: the latest QUEUESTART or CONFIGRELOAD before the line,
   * else (no start, or the pair's membership ended after it) the line's own time.
   */
  readonly staticSince?: () => number;
  /** An `Agent/` member: available only once logged in (R15). */
  readonly needsLogin?: boolean;
}

export const MEMBER_CHANGES: ReadonlySet<number> = new Set([
  EV.ADDMEMBER,
  EV.AGENTLOGIN,
  EV.REMOVEMEMBER,
  EV.AGENTLOGOFF,
  EV.AGENTLOGIN_ALL,
  EV.AGENTLOGOFF_ALL,
]);

/** Applies one line to a pair's state (reporting.md R10, R15); returns the interval changes it causes. */
export function memberStep(state: PairState, code: number, time: number, ctx: StepContext): IntervalChange[] {
  const out: IntervalChange[] = [];
  const closePause = () => {
    if (state.paused) out.push({ kind: 'closePause', time });
    state.paused = false;
  };
  const open = (at: number) => {
    state.member = true;
    out.push({ kind: 'openSession', time: at });
  };
  const close = () => {
    if (!state.member) return;
    closePause();
    state.member = false;
    out.push({ kind: 'closeSession', time });
  };
  const available = () => state.loggedIn === true || (state.loggedIn === undefined && !ctx.needsLogin);
  if (!state.member && !MEMBER_CHANGES.has(code)) {
    if (!showsMembership(code)) return out;
    // A member's line: a static member, and logged in (it is taking calls or pausing).
    state.listed = true;
    if (state.loggedIn === false || ctx.needsLogin) state.loggedIn = true;
    open(Math.min(ctx.staticSince?.() ?? time, time));
  }
  switch (code) {
    case EV.ADDMEMBER:
    case EV.AGENTLOGIN: // with a queue name (older Asterisk): a membership of that queue
      state.listed = true;
      if (state.member || !available()) break;
      open(time);
      if (code === EV.ADDMEMBER && ctx.pauseReason !== null) {
        state.paused = true;
        out.push({ kind: 'openPause', time, reason: ctx.pauseReason });
      }
      break;
    case EV.REMOVEMEMBER:
    case EV.AGENTLOGOFF:
      state.listed = false;
      close();
      break;
    case EV.AGENTLOGIN_ALL: // queue NONE: every queue the agent is a member of
      state.loggedIn = true;
      if (state.listed && !state.member) open(time);
      break;
    case EV.AGENTLOGOFF_ALL:
      state.loggedIn = false;
      close();
      break;
    case EV.PAUSE:
      closePause(); // a new reason without UNPAUSE ends the previous pause
      state.paused = true;
      out.push({ kind: 'openPause', time, reason: ctx.pauseReason ?? '' });
      break;
    case EV.UNPAUSE:
      closePause();
      break;
  }
  return out;
}
