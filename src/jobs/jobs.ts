import cron, { type ScheduledTask } from 'node-cron';
import { runAlone } from '../db/locks';
import type { AppDeps } from '../deps';

/** One background job: a name, a cron schedule (node-cron syntax, seconds optional) and what it does. */
export interface Job {
  readonly name: string;
  readonly schedule: string;
  /** Also run once as soon as the jobs start. */
  readonly runAtStart?: boolean;
  /**
   * Run by one instance at a time when several share a PostgreSQL database: a run starts only while no other
   * instance's run of this job holds its lock (src/db/locks.ts runAlone), else this tick is skipped. No effect on SQLite.
   */
  readonly alone?: boolean;
  run(): Promise<void>;
}

export interface RunningJobs {
  /** Stops scheduling and waits (bounded) for runs in progress to reach their end. */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Schedules every job with node-cron, `startAfterMs` after the call. A job never overlaps itself (a slow run
 * makes the next tick skip), its failures are logged and never stop the schedule, and stop() lets a run in
 * progress finish.
 */
export function startJobs(deps: AppDeps, jobs: readonly Job[], startAfterMs = 0): RunningJobs {
  const inFlight = new Set<Promise<void>>();
  let tasks: ScheduledTask[] = [];
  const schedule = () => {
    tasks = jobs.map((job) =>
      cron.schedule(
        job.schedule,
        async () => {
          const work = job.alone ? () => runAlone(deps.db, `job:${job.name}`, () => job.run()).then(() => undefined) : () => job.run();
          const run = work().catch((err: unknown) => deps.log.error({ job: job.name, err }, 'job failed'));
          inFlight.add(run);
          try {
            await run;
          } finally {
            inFlight.delete(run);
          }
        },
        {
          name: job.name,
          noOverlap: true,
          logger: {
            info: () => {},
            debug: () => {},
            warn: (message) => deps.log.warn({ job: job.name }, message),
            error: (message, err) => deps.log.error({ job: job.name, err: err ?? message }, 'job scheduler error'),
          },
        },
      ),
    );
    tasks.forEach((task, i) => {
      if (jobs[i]?.runAtStart) void task.execute();
    });
  };
  const timer = setTimeout(schedule, startAfterMs);
  return {
    async stop(timeoutMs = 15_000) {
      clearTimeout(timer);
      await Promise.all(tasks.map((t) => t.destroy()));
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
      await Promise.race([Promise.all(inFlight), timeout]);
    },
  };
}
