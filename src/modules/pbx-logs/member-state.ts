import { EV } from './queue-log-line';

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

/** `pauseReason`: the reason of the pause the event opens (PAUSE, ADDMEMBER PAUSED), as QueueLogEvent has it. */
export function memberStep(state: PairState, code: number, time: number, pauseReason: string | null): IntervalChange[] {
  const out: IntervalChange[] = [];
  const closePause = () => {
    if (state.paused) out.push({ kind: 'closePause', time });
    state.paused = false;
  };
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
      if (!state.member) break;
      closePause(); // a new reason without UNPAUSE ends the previous pause
      state.paused = true;
      out.push({ kind: 'openPause', time, reason: pauseReason ?? '' });
      break;
    case EV.UNPAUSE:
      if (state.member) closePause();
      break;
  }
  return out;
}
