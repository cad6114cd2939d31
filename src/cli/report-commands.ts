import { loadConfig } from '../config';
import { createLogger } from '../log';
import { ALL_TENANTS } from '../access/scope';
import { findSavedFilter } from '../modules/saved-filters/saved-filters.repository';
import { runFilterNow } from '../modules/scheduled-reports/report-runs.service';
import { buildDeps } from '../runtime';
import { CliError, DATA_DIR_HELP, EXIT, type Command } from './command';

export const reportRunCommand: Command = {
  name: ['report', 'run'],
  summary: "run a saved filter's report now and e-mail it",
  help: `Usage: tars report run ID [--for DATE] [--data-dir DIR]

Runs saved filter ID's report and e-mails it to the filter's recipients through TARS_SMTP_URL, as the
scheduled run does, under the filter owner's permissions. The period is the one of the filter's frequency
(daily when it has none) that contains DATE (YYYY-MM-DD, the tenant's local day), or by default the period
that just ended. The run is recorded; exit code 1 when it failed, with the reason.

  --for DATE       a day inside the period to report
${DATA_DIR_HELP}`,
  options: { for: { type: 'string' }, 'data-dir': { type: 'string' } },
  positionals: { min: 1, max: 1 },
  async run(values, [idText]) {
    if (!/^[1-9]\d*$/.test(idText as string)) throw new CliError('ID must be a positive integer (the saved filter id)', EXIT.usage);
    const config = loadConfig(process.env, { 'data-dir': values['data-dir'] as string | undefined });
    const deps = await buildDeps(config, createLogger(config.logLevel, process.stderr));
    try {
      // The operator of the installation may run any tenant's filter.
      const filter = await findSavedFilter(deps.database.db, ALL_TENANTS, Number(idText));
      if (!filter) throw new CliError(`no saved filter with id ${idText}`);
      const run = await runFilterNow(deps, filter, values.for as string | undefined);
      const period = `${run.period_start} to ${run.period_end}`;
      if (run.status !== 'sent')
        throw new CliError(`report of filter ${filter.id} "${filter.name}" for ${period} was not sent: ${run.error ?? run.status}`);
      process.stdout.write(
        `sent the report of filter ${filter.id} "${filter.name}" for ${period} (${run.rows ?? 0} calls) to ${filter.recipients}\n`,
      );
      return EXIT.ok;
    } finally {
      deps.mailer.close();
      await deps.database.close();
    }
  },
};
