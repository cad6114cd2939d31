import { loadConfig } from '../config';
import { readSiteConfig } from '../modules/pbx-config/site-config';
import { OPERATOR } from '../access/caller';
import { applySync, planSync, planText } from '../modules/pbx-config/sync.service';
import { openDataDir } from '../runtime';
import { CliError, DATA_DIR_HELP, EXIT, type Command } from './command';

export const pbxSyncCommand: Command = {
  name: ['pbx', 'sync'],
  summary: "bring a tenant's queues and extensions in line with the PBX's Asterisk configuration",
  help: `Usage: tars pbx sync --from DIR --tenant ID [--apply] [--json] [--data-dir DIR]

Reads the PBX's own configuration (queues.conf and what it includes, e.g. FreePBX's queues_additional.conf;
pjsip.conf / sip.conf endpoints; the dialplan's hints) and prints what it would create or change in the
tenant's directory: queues with their static members, extensions with the names the PBX logs them under
(their aliases). Nothing is removed. With --apply the plan is applied in one transaction; a second run then
plans nothing. What it cannot read faithfully is refused with the file, line and reason (docs/pbx-config.md).

  --from DIR       the configuration directory (/etc/asterisk, or a copy of it)
  --tenant ID      the tenant whose directory is synced
  --apply          apply the plan (without it nothing is written)
  --json           print the plan as JSON
${DATA_DIR_HELP}`,
  options: {
    from: { type: 'string' },
    tenant: { type: 'string' },
    apply: { type: 'boolean' },
    json: { type: 'boolean' },
    'data-dir': { type: 'string' },
  },
  positionals: { min: 0, max: 0 },
  async run(values) {
    if (typeof values.from !== 'string') throw new CliError('missing --from', EXIT.usage);
    if (typeof values.tenant !== 'string' || !/^[1-9]\d*$/.test(values.tenant))
      throw new CliError('--tenant must be a tenant id', EXIT.usage);
    const tenantId = Number(values.tenant);
    const site = readSiteConfig(values.from);
    const database = await openDataDir(loadConfig(process.env, { 'data-dir': values['data-dir'] as string | undefined }).dataDir);
    try {
      const apply = values.apply === true;
      const deps = { database, db: database.db };
      const plan = apply ? await applySync(deps, OPERATOR, tenantId, site) : await planSync(deps, OPERATOR, tenantId, site);
      process.stdout.write(`${values.json ? JSON.stringify({ applied: apply, ...plan }) : planText(plan, apply)}\n`);
      return EXIT.ok;
    } finally {
      await database.close();
    }
  },
};
