import { loadConfig } from '../config';
import { ALL_TENANTS } from '../access/scope';
import { systemClock, type Clock } from '../clock';
import type { Db, OpenDatabase } from '../db/database';
import { findExtensionByNumber } from '../modules/extensions/extensions.repository';
import { changeExtension, createExtension, extensionPage, removeExtension, toApiExtension } from '../modules/extensions/extensions.service';
import { queueByLogName } from '../modules/queues/queues.repository';
import { callQueues, changeQueue, createQueue, getQueue, removeQueue } from '../modules/queues/queues.service';
import { createNumber, listNumbers, removeNumber } from '../modules/phone-numbers/phone-numbers.service';
import { changeTenant, createTenant, removeTenant, tenantPage } from '../modules/tenants/tenants.service';
import { OPERATOR } from '../access/caller';
import { openDataDir } from '../runtime';
import type { SchemaTypes } from '../validation/schema-types';
import { Validator } from '../validation/validation';
import { CliError, DATA_DIR_HELP, EXIT, type Command, type Options, type Values } from './command';

/*
 * The site's directory from the command line, for scripts and air-gapped set-up: the same services, checks
 * and errors as the HTTP routes (docs/api.md "Directory"), acting in every tenant. Each command prints the
 * record(s) it wrote or read as JSON, one per line.
 */

const validator = new Validator();

/** What the directory's services get from the command line: the database, opened for the one command, and the clock. */
interface DirectoryDeps {
  readonly database: OpenDatabase;
  readonly db: Db;
  readonly clock: Clock;
}

function int(values: Values, flag: string, required = true): number | undefined {
  const text = values[flag];
  if (text === undefined) {
    if (required) throw new CliError(`missing --${flag}`, EXIT.usage);
    return undefined;
  }
  if (typeof text !== 'string' || !/^\d+$/.test(text)) throw new CliError(`--${flag} must be a whole number`, EXIT.usage);
  return Number(text);
}

const list = (v: Values[string]): string[] => (Array.isArray(v) ? v : typeof v === 'string' ? [v] : []);
const text = (v: Values[string]): string | undefined => (typeof v === 'string' ? v : undefined);

/** A request body as the HTTP route would check it: the same schema, the same messages. */
function checked<
  Id extends
    'extension-create' | 'extension-update' | 'queue-create' | 'queue-update' | 'tenant-create' | 'tenant-update' | 'phone-number-create',
>(schema: Id, body: Record<string, unknown>): SchemaTypes[Id] {
  const clean = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
  const problems = validator.problems(schema, clean);
  if (problems.length > 0) throw new CliError(problems.join('; '), EXIT.usage);
  return clean as SchemaTypes[Id];
}

function directoryCommand(
  name: [string, string],
  summary: string,
  usage: string,
  options: Options,
  act: (deps: DirectoryDeps, values: Values) => Promise<unknown>,
): Command {
  return {
    name,
    summary,
    help: `Usage: tars ${name.join(' ')} ${usage}\n${DATA_DIR_HELP}`,
    options: { ...options, 'data-dir': { type: 'string' } },
    positionals: { min: 0, max: 0 },
    async run(values) {
      const database = await openDataDir(loadConfig(process.env, { 'data-dir': text(values['data-dir']) }).dataDir);
      try {
        const out = await act({ database, db: database.db, clock: systemClock }, values);
        for (const record of Array.isArray(out) ? out : [out]) process.stdout.write(`${JSON.stringify(record)}\n`);
        return EXIT.ok;
      } finally {
        await database.close();
      }
    },
  };
}

async function extensionByNumber(deps: DirectoryDeps, values: Values) {
  const tenantId = int(values, 'tenant') as number;
  const extNum = int(values, 'ext') as number;
  const row = await findExtensionByNumber(deps.db, ALL_TENANTS, tenantId, extNum);
  if (!row) throw new CliError(`tenant ${tenantId} has no extension ${extNum}`);
  return toApiExtension(row);
}

const EXTENSION_FIELDS = `
  --tenant ID          the tenant
  --ext NUM            the extension number (unique in the tenant)
  --name NAME          its display name (Asterisk's member name: a log line under it counts for it)
  --peer PEER          how the PBX's logs name it (PJSIP/1001), unique in the tenant
  --caller-id NUM      its caller ID number
  --branch ID          a branch of the tenant`;

export const extensionAddCommand = directoryCommand(
  ['extension', 'add'],
  'add an extension (an agent) to a tenant',
  `--tenant ID --ext NUM --peer PEER [--name NAME] [--alias NAME]… [--caller-id NUM] [--branch ID] [--data-dir DIR]
${EXTENSION_FIELDS}
  --alias NAME         another name the PBX's logs use for this agent (repeat for several; reporting.md R14)`,
  {
    tenant: { type: 'string' },
    ext: { type: 'string' },
    peer: { type: 'string' },
    name: { type: 'string' },
    alias: { type: 'string', multiple: true },
    'caller-id': { type: 'string' },
    branch: { type: 'string' },
  },
  (deps, v) =>
    createExtension(
      deps,
      OPERATOR,
      checked('extension-create', {
        tenantId: int(v, 'tenant'),
        extNum: int(v, 'ext'),
        peerName: text(v.peer),
        extName: text(v.name),
        agentAliases: v.alias === undefined ? undefined : list(v.alias),
        callerIdNumber: text(v['caller-id']),
        branchId: int(v, 'branch', false),
      }),
    ),
);

export const extensionUpdateCommand = directoryCommand(
  ['extension', 'update'],
  "change an extension or its agent's aliases (stored log lines follow)",
  `--tenant ID --ext NUM [--add-alias NAME]… [--remove-alias NAME]… [--name NAME] [--peer PEER] [--new-ext NUM] [--caller-id NUM] [--branch ID] [--data-dir DIR]
${EXTENSION_FIELDS}
  --add-alias NAME     another name the PBX's logs use for this agent (repeat for several)
  --remove-alias NAME  a name that is no longer this agent's
  --new-ext NUM        a new extension number`,
  {
    tenant: { type: 'string' },
    ext: { type: 'string' },
    'add-alias': { type: 'string', multiple: true },
    'remove-alias': { type: 'string', multiple: true },
    name: { type: 'string' },
    peer: { type: 'string' },
    'new-ext': { type: 'string' },
    'caller-id': { type: 'string' },
    branch: { type: 'string' },
  },
  async (deps, v) => {
    const ext = await extensionByNumber(deps, v);
    const removed = new Set(list(v['remove-alias']));
    const aliases = [
      ...ext.agentAliases.filter((a) => !removed.has(a)),
      ...list(v['add-alias']).filter((a) => !ext.agentAliases.includes(a)),
    ];
    const aliasesChanged = v['add-alias'] !== undefined || v['remove-alias'] !== undefined;
    const patch = checked('extension-update', {
      agentAliases: aliasesChanged ? aliases : undefined,
      extName: text(v.name),
      peerName: text(v.peer),
      extNum: int(v, 'new-ext', false),
      callerIdNumber: text(v['caller-id']),
      branchId: int(v, 'branch', false),
    });
    if (Object.keys(patch).length === 0) throw new CliError('nothing to change: give at least one option to change', EXIT.usage);
    return changeExtension(deps, OPERATOR, ext.id, patch);
  },
);

export const extensionListCommand = directoryCommand(
  ['extension', 'list'],
  "list a tenant's extensions",
  '[--tenant ID] [--data-dir DIR]\n\n  --tenant ID          only this tenant (default: every tenant)',
  { tenant: { type: 'string' } },
  async (deps, v) => (await extensionPage(deps, OPERATOR, { tenantId: int(v, 'tenant', false), paginated: 0 })).records,
);

export const extensionDeleteCommand = directoryCommand(
  ['extension', 'delete'],
  'delete an extension',
  '--tenant ID --ext NUM [--data-dir DIR]',
  { tenant: { type: 'string' }, ext: { type: 'string' } },
  async (deps, v) => removeExtension(deps, OPERATOR, (await extensionByNumber(deps, v)).id),
);

const QUEUE_FIELDS = `
  --tenant ID          the tenant
  --log-name NAME      the queue's name in queue_log (its queues.conf section), unique without case
  --name NAME          its display name
  --number NUM         the number callers dial
  --strategy S         ringall, leastrecent, fewestcalls, random, rrmemory, rrordered, linear or wrandom
  --branch ID          a branch of the tenant
  --service-level S    its service level threshold in seconds, 1-3600 (Asterisk's servicelevel; default 30)
  --member ID          an extension id of a static member (repeat for several; replaces the list)`;
const QUEUE_OPTIONS = {
  tenant: { type: 'string' },
  'log-name': { type: 'string' },
  name: { type: 'string' },
  number: { type: 'string' },
  strategy: { type: 'string' },
  branch: { type: 'string' },
  'service-level': { type: 'string' },
  member: { type: 'string', multiple: true },
} as const satisfies Options;

const members = (v: Values) =>
  v.member === undefined
    ? undefined
    : list(v.member).map((m) => {
        if (!/^\d+$/.test(m)) throw new CliError('--member must be an extension id', EXIT.usage);
        return Number(m);
      });

/** The queue a --log-name names in a --tenant (names are unique without case: the repository's lookup). */
async function queueNamed(deps: DirectoryDeps, v: Values) {
  const tenantId = int(v, 'tenant') as number;
  const logName = text(v['log-name']);
  if (!logName) throw new CliError('missing --log-name', EXIT.usage);
  const found = await queueByLogName(deps.db, logName);
  if (!found || found.tenant_id !== tenantId)
    throw new CliError(`tenant ${tenantId} has no queue with queue_log name ${JSON.stringify(logName)}`);
  return getQueue(deps, OPERATOR, found.id);
}

export const queueAddCommand = directoryCommand(
  ['queue', 'add'],
  'add a queue to a tenant',
  `--tenant ID --log-name NAME --name NAME [--number NUM] [--strategy S] [--branch ID] [--service-level S] [--member ID]… [--data-dir DIR]
${QUEUE_FIELDS}`,
  QUEUE_OPTIONS,
  (deps, v) =>
    createQueue(
      deps,
      OPERATOR,
      checked('queue-create', {
        tenantId: int(v, 'tenant'),
        logName: text(v['log-name']),
        name: text(v.name),
        number: text(v.number),
        ringStrategy: text(v.strategy),
        branchId: int(v, 'branch', false),
        serviceLevelSeconds: int(v, 'service-level', false),
        members: members(v),
      }),
    ),
);

export const queueUpdateCommand = directoryCommand(
  ['queue', 'update'],
  'change a queue (found by its queue_log name)',
  `--tenant ID --log-name NAME [--name NAME] [--new-log-name NAME] [--number NUM] [--strategy S] [--branch ID] [--service-level S] [--member ID]… [--data-dir DIR]
${QUEUE_FIELDS}
  --new-log-name NAME  a new queue_log name`,
  { ...QUEUE_OPTIONS, 'new-log-name': { type: 'string' } },
  async (deps, v) => {
    const queue = await queueNamed(deps, v);
    const patch = checked('queue-update', {
      name: text(v.name),
      logName: text(v['new-log-name']),
      number: text(v.number),
      ringStrategy: text(v.strategy),
      branchId: int(v, 'branch', false),
      serviceLevelSeconds: int(v, 'service-level', false),
      members: members(v),
    });
    if (Object.keys(patch).length === 0) throw new CliError('nothing to change: give at least one option to change', EXIT.usage);
    return changeQueue(deps, OPERATOR, queue.id, patch);
  },
);

export const queueListCommand = directoryCommand(
  ['queue', 'list'],
  "list a tenant's queues with their static members",
  '[--tenant ID] [--data-dir DIR]\n\n  --tenant ID          only this tenant (default: every tenant)',
  { tenant: { type: 'string' } },
  async (deps, v) => {
    const queues = await callQueues(deps, OPERATOR, { tenantId: int(v, 'tenant', false) });
    return Promise.all(queues.map((q) => getQueue(deps, OPERATOR, q.id)));
  },
);

export const queueDeleteCommand = directoryCommand(
  ['queue', 'delete'],
  'delete a queue (--cascade: with its stored log lines and reports)',
  '--tenant ID --log-name NAME [--cascade] [--data-dir DIR]\n\n  --cascade            also delete its stored queue_log lines and the reports made from them',
  { tenant: { type: 'string' }, 'log-name': { type: 'string' }, cascade: { type: 'boolean' } },
  async (deps, v) => removeQueue(deps, OPERATOR, (await queueNamed(deps, v)).id, v.cascade === true),
);

const TENANT_OPTIONS = {
  name: { type: 'string' },
  partner: { type: 'string' },
  'mfa-required': { type: 'string' },
} as const satisfies Options;
const mfaFlag = (v: Values) => (v['mfa-required'] === undefined ? undefined : Number(v['mfa-required']));

export const tenantAddCommand = directoryCommand(
  ['tenant', 'add'],
  'create a tenant',
  `--name NAME [--partner ID] [--mfa-required 0|1] [--data-dir DIR]

  --name NAME          the tenant's name
  --partner ID         the partner whose partner admins reach it (default 0: none)
  --mfa-required 0|1   1: every user of the tenant must have MFA`,
  TENANT_OPTIONS,
  (deps, v) =>
    createTenant(
      deps,
      OPERATOR,
      checked('tenant-create', { name: text(v.name), partnerId: int(v, 'partner', false), mfaRequired: mfaFlag(v) }),
    ),
);

export const tenantUpdateCommand = directoryCommand(
  ['tenant', 'update'],
  'change a tenant',
  '--tenant ID [--name NAME] [--partner ID] [--mfa-required 0|1] [--data-dir DIR]',
  { ...TENANT_OPTIONS, tenant: { type: 'string' } },
  (deps, v) =>
    changeTenant(
      deps,
      OPERATOR,
      int(v, 'tenant') as number,
      checked('tenant-update', { name: text(v.name), partnerId: int(v, 'partner', false), mfaRequired: mfaFlag(v) }),
    ),
);

export const tenantListCommand = directoryCommand(
  ['tenant', 'list'],
  'list the tenants',
  '[--data-dir DIR]',
  {},
  async (deps) => (await tenantPage(deps, OPERATOR, { paginated: 0 })).records,
);

export const tenantDeleteCommand = directoryCommand(
  ['tenant', 'delete'],
  'delete a tenant (--cascade: with everything it owns)',
  '--tenant ID [--cascade] [--data-dir DIR]\n\n  --cascade            also delete every record the tenant owns (without it, a tenant that owns records is refused)',
  { tenant: { type: 'string' }, cascade: { type: 'boolean' } },
  (deps, v) => removeTenant(deps, OPERATOR, int(v, 'tenant') as number, v.cascade === true),
);

export const numberAddCommand = directoryCommand(
  ['number', 'add'],
  'add a phone number to a tenant',
  `--tenant ID --number NUM --branch ID --sms-ext ID [--data-dir DIR]

  --number NUM         digits, optionally after +
  --branch ID          a branch of the tenant
  --sms-ext ID         the extension id that receives its SMS`,
  { tenant: { type: 'string' }, number: { type: 'string' }, branch: { type: 'string' }, 'sms-ext': { type: 'string' } },
  (deps, v) =>
    createNumber(
      deps,
      OPERATOR,
      checked('phone-number-create', {
        tenantId: int(v, 'tenant'),
        number: text(v.number),
        branchId: int(v, 'branch'),
        smsExtId: int(v, 'sms-ext'),
      }),
    ),
);

export const numberListCommand = directoryCommand(
  ['number', 'list'],
  "list a tenant's phone numbers",
  '[--tenant ID] [--data-dir DIR]',
  { tenant: { type: 'string' } },
  async (deps, v) => (await listNumbers(deps, OPERATOR, { tenantId: int(v, 'tenant', false), paginated: 0 })).records,
);

export const numberDeleteCommand = directoryCommand(
  ['number', 'delete'],
  'delete a phone number',
  '--id ID [--data-dir DIR]',
  { id: { type: 'string' } },
  (deps, v) => removeNumber(deps, OPERATOR, int(v, 'id') as number),
);

export const DIRECTORY_COMMANDS: readonly Command[] = [
  tenantAddCommand,
  tenantUpdateCommand,
  tenantListCommand,
  tenantDeleteCommand,
  numberAddCommand,
  numberListCommand,
  numberDeleteCommand,
  extensionAddCommand,
  extensionUpdateCommand,
  extensionListCommand,
  extensionDeleteCommand,
  queueAddCommand,
  queueUpdateCommand,
  queueListCommand,
  queueDeleteCommand,
];
