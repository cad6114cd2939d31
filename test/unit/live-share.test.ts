import { expect } from 'chai';
import { queuesText, readQueues, readSignal, signalText } from '../../src/modules/live-queues/live-share';
import { LiveState } from '../../src/modules/live-queues/live-state';
import { amiTranscript } from '../helpers/ami-transcript';

describe('the live state as one instance publishes it to the others (src/modules/live-queues/live-share.ts)', () => {
  it('when the recorded run’s queues after each event are written and read back, then they are deep-equal, times and maps included', () => {
    const transcript = amiTranscript();
    const state = new LiveState();
    const at = new Date('2026-11-27T10:00:00.000Z');
    state.snapshot(transcript.checkpoints[0]!.answer, at);
    let offset = 0;
    let carried = 0;
    let changes = 0;
    for (const { message } of transcript.events) {
      // Every seventh change is enough to meet callers, pauses and calls (and keeps the test quick).
      if (state.apply(message, new Date(at.getTime() + ++offset * 1000)) === undefined || ++changes % 7 !== 0) continue;
      const back = readQueues(queuesText(state.queues));
      expect(back, `after event ${offset}`).to.deep.equal(state.queues);
      const mirror = new LiveState();
      mirror.replace(back);
      expect(mirror.queues).to.deep.equal(state.queues);
      if ([...state.queues.values()].some((q) => q.callers.size > 0 || [...q.members.values()].some((mem) => mem.pausedSince))) carried++;
    }
    expect(carried, 'states with a caller or a pause carried').to.be.greaterThan(0);
  });

  it('when a signal names more queues than NOTIFY can carry, then it says all of them (null) instead, and a payload that is not a signal is ignored', () => {
    const few = { pbx: 'pbx1', version: 3, queues: ['sales', 'support'] };
    expect(readSignal(signalText(few))).to.deep.equal(few);
    const many = { pbx: 'pbx1', version: 4, queues: Array.from({ length: 2000 }, (_, i) => `queue-${i}`) };
    const text = signalText(many);
    expect(text.length).to.be.lessThan(8000);
    expect(readSignal(text)).to.deep.equal({ pbx: 'pbx1', version: 4, queues: null });
    expect(readSignal('not json')).to.equal(undefined);
    expect(readSignal('{"pbx":1,"version":2}')).to.equal(undefined);
  });
});
