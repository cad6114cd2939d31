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

  describe("waits and times in state on TARS's own clock (issue 30)", () => {
    const member = (fields: Record<string, string>): AmiMessage => ({
      Event: 'QueueMemberStatus',
      Queue: 'sales',
      MemberName: 'Alice',
      Interface: 'Local/201@agents/n',
      StateInterface: 'PJSIP/201',
      Membership: 'dynamic',
      Penalty: '0',
      CallsTaken: '0',
      LastCall: '0',
      LastPause: '0',
      LoginTime: '0',
      InCall: '0',
      Status: '1',
      Paused: '0',
      PausedReason: '',
      ...fields,
    });
    const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 9, 0, s));
    const hoursAgo = String(Date.UTC(2026, 10, 26, 3, 0, 0) / 1000); // a PBX clock six hours behind, or a replayed recording

    it('when a caller joins with a Timestamp hours in the past, then it waits since the event reached TARS', () => {
      const state = new LiveState();
      const join = { Event: 'QueueCallerJoin', Queue: 'sales', Uniqueid: '1.1', Channel: 'PJSIP/t-1', Position: '1', Timestamp: hoursAgo };
      state.apply({ ...join, CallerIDNum: '5551234' }, at(10));
      expect(state.queues.get('sales')?.callers.get('1.1')?.since.toISOString()).to.equal(at(10).toISOString());
    });

    it('when a member changes state, then its state counts from the arrival of that event; an event that leaves the state as it was keeps the beginning', () => {
      const state = new LiveState();
      const alice = () => state.queues.get('sales')?.members.get('Local/201@agents/n');
      state.apply(member({ Timestamp: hoursAgo }), at(0));
      expect(alice()?.stateSince.toISOString()).to.equal(at(0).toISOString());
      state.apply({ ...member({ Penalty: '2' }), Event: 'QueueMemberPenalty' }, at(5)); // still available
      expect(alice()?.stateSince.toISOString()).to.equal(at(0).toISOString());
      state.apply({ ...member({ Paused: '1', PausedReason: 'Lunch', LastPause: hoursAgo }), Event: 'QueueMemberPause' }, at(20));
      expect(alice()?.stateSince.toISOString()).to.equal(at(20).toISOString());
      expect(alice()?.pausedSince?.toISOString()).to.equal(at(20).toISOString());
      state.apply(member({ Paused: '1', PausedReason: 'Lunch', Status: '2' }), at(30)); // a call while paused
      expect(memberState(alice() as never)).to.equal('inCall');
      expect(alice()?.stateSince.toISOString()).to.equal(at(30).toISOString());
      expect(alice()?.pausedSince?.toISOString()).to.equal(at(20).toISOString()); // still the same pause
      state.apply({ Event: 'AgentComplete', Queue: 'sales', Interface: 'Local/201@agents/n' }, at(40));
      state.apply(member({ Paused: '0', Status: '1' }), at(45));
      expect(alice()?.pausedSince).to.equal(undefined);
      expect(alice()?.stateSince.toISOString()).to.equal(at(45).toISOString());
    });

    it('when the queues are read whole again, then members in the same state keep their beginning and the others begin at the answer', () => {
      const state = new LiveState();
      const params = { Event: 'QueueParams', Queue: 'sales', Strategy: 'ringall', ServiceLevel: '60' };
      const listed = (fields: Record<string, string>) => {
        const { Event: _e, MemberName, Interface, ...rest } = member(fields);
        return { ...rest, Event: 'QueueMember', Name: MemberName, Location: Interface } as AmiMessage;
      };
      state.snapshot([params, listed({ Paused: '1', PausedReason: 'Break', LastPause: hoursAgo })], at(0));
      const alice = () => state.queues.get('sales')?.members.get('Local/201@agents/n');
      expect(alice()?.stateSince.toISOString()).to.equal(at(0).toISOString()); // not LastPause: when TARS learned it
      expect(alice()?.pausedSince?.toISOString()).to.equal(at(0).toISOString());
      state.snapshot([params, listed({ Paused: '1', PausedReason: 'Break' })], at(300));
      expect(alice()?.stateSince.toISOString()).to.equal(at(0).toISOString());
      state.snapshot([params, listed({ Paused: '0' })], at(600));
      expect(alice()?.stateSince.toISOString()).to.equal(at(600).toISOString());
      expect(alice()?.pausedSince).to.equal(undefined);
    });
  });
});
