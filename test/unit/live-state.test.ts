import { expect } from 'chai';
import type { AmiMessage } from '../../src/ami/ami-protocol';
import { LiveState, memberState } from '../../src/modules/live-queues/live-state';
import { amiTranscript, fromAnswer, fromState, type Checkpoint } from '../helpers/ami-transcript';

describe('live queue state from AMI events (a real Asterisk 22 run)', () => {
  const transcript = amiTranscript();
  const [first, ...later] = transcript.checkpoints as [Checkpoint, ...Checkpoint[]];

  it('when the recorded run is read, then it has QueueStatus answers to check against, with callers waiting and members paused', () => {
    expect(transcript.checkpoints).to.have.length(22);
    const answers = transcript.checkpoints.flatMap((c) => c.answer);
    expect(answers.filter((m: AmiMessage) => m.Event === 'QueueEntry').length).to.be.greaterThan(20);
    expect(answers.filter((m: AmiMessage) => m.Event === 'QueueMember' && m.Paused === '1').length).to.be.greaterThan(20);
  });

  it("when the state is kept by the events after the first snapshot, then it equals Asterisk's own QueueStatus answer at every recorded point", () => {
    const state = new LiveState();
    state.snapshot(first.answer, first.at);
    expect(fromState(state.queues)).to.deep.equal(fromAnswer(first));
    let next = first.after;
    for (const c of later) {
      for (; next < c.after; next++) {
        const e = transcript.events[next];
        if (e) state.apply(e.message, e.at);
      }
      expect(fromState(state.queues), `at ${c.at.toISOString()}`).to.deep.equal(fromAnswer(c));
      // Waiting since: Asterisk says how long (whole seconds); the state knows since when.
      for (const m of c.answer.filter((a) => a.Event === 'QueueEntry')) {
        const since = state.queues.get(m.Queue ?? '')?.callers.get(m.Uniqueid ?? '')?.since;
        expect(Math.abs(c.at.getTime() - (since?.getTime() ?? 0) - Number(m.Wait) * 1000)).to.be.below(1500);
      }
    }
  });

  it("when a member's device state, call and pause are known, then its state says what it is doing", () => {
    const base = { interface: 'Local/201@agents/n', name: 'A', stateInterface: '', membership: 'static', penalty: 0, callsTaken: 0 };
    const member = { ...base, lastCall: 0, lastPause: 0, loginTime: 0, inCall: false, status: 1, paused: false, pausedReason: '' };
    expect(memberState(member)).to.equal('available');
    expect(memberState({ ...member, paused: true })).to.equal('paused');
    expect(memberState({ ...member, status: 6 })).to.equal('ringing');
    expect(memberState({ ...member, status: 2, paused: true })).to.equal('inCall');
    expect(memberState({ ...member, inCall: true })).to.equal('inCall');
    expect(memberState({ ...member, status: 5, paused: true })).to.equal('unavailable');
  });
});
