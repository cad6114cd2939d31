import { EV, showsMembership } from './queue-log-line';

/**
 * Membership and pause state of one (agent, queue) pair, reporting.md R10, as a pure state machine. Each
 * membership event yields the interval changes it causes; the importer writes them as they come, and a
 * rebuild replays every event of a queue through the same function.
 */
export interface PairState {
  member: boolean;
  paused: boolean;
}

export type IntervalChange =
  | { readonly kind: 'openSession'; readonly time: number }
  | { readonly kind: 'closeSession'; readonly time: number }
  | { readonly kind: 'openPause'; readonly time: number; readonly reason: string }
  | { readonly kind: 'closePause'; readonly time: number };

/**
 * `pauseReason`: the reason of the pause the event opens (PAUSE, ADDMEMBER PAUSED), as QueueLogEvent has it.
 * `staticSince`: when a line that only a member gets (showsMembership) finds the agent without membership,
 * the agent is a static member (R15) whose membership opens then: the latest QUEUESTART or CONFIGRELOAD
 * before the line (not before the pair's last membership ended), else the line's own time.
 */
export function memberStep(
  state: PairState,
  code: number,
  time: number,
  pauseReason: string | null,
  staticSince: () => number = () => time,
): IntervalChange[] {
  const out: IntervalChange[] = [];
  const closePause = () => {
    if (state.paused) out.push({ kind: 'closePause', time });
    state.paused = false;
  };
  if (!state.member && code !== EV.ADDMEMBER && code !== EV.AGENTLOGIN && code !== EV.REMOVEMEMBER && code !== EV.AGENTLOGOFF) {
    if (!showsMembership(code)) return out;
    state.member = true;
    out.push({ kind: 'openSession', time: Math.min(staticSince(), time) });
  }
  switch (code) {
    case EV.ADDMEMBER:
    case EV.AGENTLOGIN:
      if (state.member) break;
      state.member = true;
      out.push({ kind: 'openSession', time });
      if (code === EV.ADDMEMBER && pauseReason !== null) {
        state.paused = true;
        out.push({ kind: 'openPause', time, reason: pauseReason });
      }
      break;
    case EV.REMOVEMEMBER:
    case EV.AGENTLOGOFF:
      if (!state.member) break;
      closePause();
      state.member = false;
      out.push({ kind: 'closeSession', time });
      break;
    case EV.PAUSE:
      closePause(); // a new reason without UNPAUSE ends the previous pause
      state.paused = true;
      out.push({ kind: 'openPause', time, reason: pauseReason ?? '' });
      break;
    case EV.UNPAUSE:
      closePause();
      break;
  }
  return out;
}
