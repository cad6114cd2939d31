import type { AppDeps } from '../deps';
import { ReportScheduler } from '../modules/scheduled-reports/scheduler';
import { Dispatcher } from '../modules/webhooks/dispatcher';
import { OPERATOR } from '../access/caller';
import { forgetCalls } from '../modules/webhooks/events.service';
import type { Job } from './jobs';

/**
 * The job table: every background job of `tars serve`, with its schedule (node-cron syntax; a sixth
 * leading field is seconds).
 */
export function jobsOf(deps: AppDeps): Job[] {
  const dispatcher = new Dispatcher(deps);
  const reports = new ReportScheduler(deps);
  return [
    {
      // Every minute, and once at start: periods that fell due while the server was down go out now.
      name: 'scheduled-reports',
      schedule: '* * * * *',
      runAtStart: true,
      // Not `alone`: every instance ticks, and a period's row and a run's claim make each report go out once.
      run: () => reports.tick(),
    },
    {
      // Call events sent by AMI or a log line are remembered two days, so that the other source stays silent.
      name: 'call-events-forget',
      schedule: '17 * * * *',
      // Harmless twice (it deletes what is older than two days), but one instance at a time is enough.
      alone: true,
      run: async () => void forgetCalls({ sqlite: deps.database.sqlite, clock: deps.clock }, OPERATOR),
    },
    {
      // Events may be written by any process (a CLI import included): poll the outbox every second.
      name: 'webhook-deliveries',
      schedule: '* * * * * *',
      run: () => dispatcher.drain().then(() => undefined),
    },
  ];
}
