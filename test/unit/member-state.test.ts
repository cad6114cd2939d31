import { expect } from 'chai';
import { replayIntervals } from '../../src/modules/pbx-logs/intervals';
import { EV } from '../../src/modules/pbx-logs/queue-log-line';

type E = [number, keyof typeof EV, string?, number?];
/** `starts`: the times of the PBX's QUEUESTART / CONFIGRELOAD lines (R15). */
const replay = (events: E[], starts: number[] = []) =>
  replayIntervals(
    events.map(([time, name, reason, agent]) => ({
      agent: agent ?? 7,
      time,
      event: EV[name],
      pauseReason: name === 'PAUSE' ? (reason ?? '') : name === 'ADDMEMBER' && reason === 'PAUSED' ? '' : null,
    })),
    (time) => starts.filter((t) => t <= time).at(-1),
  );

describe('membership and pauses (reporting.md R10)', () => {
  it('when a member is added, paused, unpaused and removed, then one session and one pause result', () => {
    expect(
      replay([
        [10, 'ADDMEMBER'],
        [20, 'PAUSE', 'Lunch'],
        [30, 'UNPAUSE'],
        [50, 'REMOVEMEMBER'],
      ]),
    ).to.deep.equal({
      sessions: [{ agent: 7, start: 10, end: 50 }],
      pauses: [{ agent: 7, start: 20, end: 30, reason: 'Lunch' }],
    });
  });

  it('when ADDMEMBER says PAUSED, then a pause with reason "" opens with the membership', () => {
    expect(
      replay([
        [10, 'ADDMEMBER', 'PAUSED'],
        [15, 'UNPAUSE'],
      ]).pauses,
    ).to.deep.equal([{ agent: 7, start: 10, end: 15, reason: '' }]);
  });

  it('when PAUSE comes while paused, then the pause ends and a new one starts with the new reason', () => {
    expect(
      replay([
        [10, 'AGENTLOGIN'],
        [20, 'PAUSE', 'Break'],
        [25, 'PAUSE', 'DND'],
        [40, 'AGENTLOGOFF'],
      ]).pauses,
    ).to.deep.equal([
      { agent: 7, start: 20, end: 25, reason: 'Break' },
      { agent: 7, start: 25, end: 40, reason: 'DND' },
    ]);
  });

  it('when the member is removed while paused, then the pause closes first; a second add or remove is ignored', () => {
    expect(
      replay([
        [10, 'ADDMEMBER'],
        [12, 'ADDMEMBER'],
        [20, 'PAUSE'],
        [30, 'REMOVEMEMBER'],
        [35, 'REMOVEMEMBER'],
      ]),
    ).to.deep.equal({
      sessions: [{ agent: 7, start: 10, end: 30 }],
      pauses: [{ agent: 7, start: 20, end: 30, reason: '' }],
    });
  });

  it('when lines come from agent NONE, or a non-member has only lines a non-member can get, then nothing changes; open states stay open', () => {
    expect(
      replay([
        [5, 'PAUSE', 'Break', 0],
        [6, 'ENTERQUEUE'],
        [7, 'ABANDON'],
        [10, 'ADDMEMBER', undefined, 0],
      ]),
    ).to.deep.equal({ sessions: [], pauses: [] });
    expect(
      replay([
        [10, 'ADDMEMBER'],
        [20, 'PAUSE', 'Break'],
      ]),
    ).to.deep.equal({
      sessions: [{ agent: 7, start: 10, end: null }],
      pauses: [{ agent: 7, start: 20, end: null, reason: 'Break' }],
    });
  });
});

describe('static members (reporting.md R15)', () => {
  it('when a non-member is paused, then it is a static member from the latest PBX start before the line, and the pause counts', () => {
    expect(
      replay(
        [
          [20, 'PAUSE', 'Lunch'],
          [30, 'UNPAUSE'],
        ],
        [5, 10, 40],
      ),
    ).to.deep.equal({
      sessions: [{ agent: 7, start: 10, end: null }],
      pauses: [{ agent: 7, start: 20, end: 30, reason: 'Lunch' }],
    });
  });

  it('when a non-member answers a call and the log has no start before it, then its membership opens at that line', () => {
    expect(
      replay(
        [
          [20, 'CONNECT'],
          [25, 'RINGCANCELED'],
          [60, 'COMPLETEAGENT'],
        ],
        [100],
      ).sessions,
    ).to.deep.equal([{ agent: 7, start: 20, end: null }]);
  });

  it('when a static member is removed and then rings again, then the new membership starts at that line, unless the PBX restarted since', () => {
    expect(
      replay(
        [
          [20, 'RINGNOANSWER'],
          [30, 'REMOVEMEMBER'],
          [50, 'CONNECT'],
        ],
        [10],
      ).sessions,
    ).to.deep.equal([
      { agent: 7, start: 10, end: 30 },
      { agent: 7, start: 50, end: null },
    ]);
    expect(
      replay(
        [
          [20, 'RINGNOANSWER'],
          [30, 'REMOVEMEMBER'],
          [50, 'CONNECT'],
        ],
        [10, 40],
      ).sessions,
    ).to.deep.equal([
      { agent: 7, start: 10, end: 30 },
      { agent: 7, start: 40, end: null },
    ]);
  });
});
