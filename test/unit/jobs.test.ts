import { expect } from 'chai';
import type { AppDeps } from '../../src/deps';
import { startJobs, type Job } from '../../src/jobs/jobs';

/** The one part of the dependencies startJobs reads: the log, which must stay silent here. */
function depsLogging(lines: string[]): AppDeps {
  const log = { warn: (_: unknown, m: string) => lines.push(m), error: (_: unknown, m: string) => lines.push(m) };
  return { log } as unknown as AppDeps;
}

/** The next turn of the timers: a timer of 0 ms made before it has run by then (Node runs them in order). */
const afterTimersMadeSoFar = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe('background jobs (startJobs)', () => {
  it('when jobs start, then a job that runs at start runs once the call has returned, not during it', async () => {
    const lines: string[] = [];
    let runs = 0;
    let ran!: () => void;
    const done = new Promise<void>((resolve) => (ran = resolve));
    const run = async () => {
      runs++;
      ran();
    };
    const job: Job = { name: 'at-start', schedule: '0 0 1 1 *', runAtStart: true, run };
    const jobs = startJobs(depsLogging(lines), [job]);
    expect(runs, 'during the call').to.equal(0);
    await done;
    expect(runs).to.equal(1);
    await jobs.stop();
    expect(lines).to.deep.equal([]);
  });

  it('when jobs are stopped before their start, then none is scheduled or run', async () => {
    let runs = 0;
    const job: Job = { name: 'at-start', schedule: '* * * * * *', runAtStart: true, run: async () => void runs++ };
    const jobs = startJobs(depsLogging([]), [job], 0);
    await jobs.stop();
    await afterTimersMadeSoFar();
    await afterTimersMadeSoFar();
    expect(runs).to.equal(0);
  });
});
