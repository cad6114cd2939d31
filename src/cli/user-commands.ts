import { loadConfig } from '../config';
import { ROLES } from '../access/permissions';
import { ALL_TENANTS, tenantsScope } from '../access/scope';
import { generatePassword, hashPassword } from '../modules/auth/passwords';
import { isBranchOfTenant } from '../modules/branches/branches.repository';
import { findUserByEmail, setPassword } from '../modules/auth/credentials.repository';
import { tenantExists } from '../modules/tenants/tenants.repository';
import { insertUser } from '../modules/users/users.repository';
import { transaction } from '../db/database';
import { FORMATS } from '../validation/formats';
import { openDataDir } from '../runtime';
import { CliError, DATA_DIR_HELP, EXIT, type Command } from './command';

const roleList = ROLES.map((r) => `${r.value} ${r.name}`).join(', ');

function roleValue(text: string): number {
  const role = ROLES.find((r) => String(r.value) === text || r.name === text.toUpperCase());
  if (!role) throw new CliError(`--role must be one of ${roleList}`, EXIT.usage);
  return role.value;
}

function positiveInt(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(text)) throw new CliError(`${flag} must be a positive integer`, EXIT.usage);
  return Number(text);
}

const dataDirOf = (values: Record<string, unknown>) =>
  loadConfig(process.env, { 'data-dir': values['data-dir'] as string | undefined }).dataDir;

export const userAddCommand: Command = {
  name: ['user', 'add'],
  summary: 'create a user',
  help: `Usage: tars user add --email E --tenant ID --role ROLE [--branch ID] [--password P] [--data-dir DIR]

Creates a user. Without --password a password is generated and printed once.
ROLE is a number or a name: ${roleList}.

  --email E        e-mail (the login name; unique, case-insensitive)
  --tenant ID      tenant id
  --role ROLE      role (see above)
  --branch ID      branch id of that tenant (optional)
  --password P     password, at least 8 characters (it shows in the process list: prefer the generated one)
${DATA_DIR_HELP}`,
  options: {
    email: { type: 'string' },
    tenant: { type: 'string' },
    role: { type: 'string' },
    branch: { type: 'string' },
    password: { type: 'string' },
    'data-dir': { type: 'string' },
  },
  positionals: { min: 0, max: 0 },
  async run(values) {
    const missing = ['email', 'tenant', 'role'].filter((k) => !values[k]);
    if (missing.length > 0) throw new CliError(`missing ${missing.map((m) => `--${m}`).join(', ')}`, EXIT.usage);
    const email = String(values.email);
    // The API's own rule (schemas/user-create.json: format email, at most 320 characters): no control characters.
    if (email.length > 320 || !(FORMATS.email as RegExp).test(email)) throw new CliError('--email must be an e-mail address', EXIT.usage);
    const tenantId = positiveInt(values.tenant as string, '--tenant') as number;
    const branchId = positiveInt(values.branch as string | undefined, '--branch');
    const role = roleValue(String(values.role));
    const given = values.password as string | undefined;
    if (given !== undefined && given.length < 8) throw new CliError('--password must be at least 8 characters long', EXIT.usage);
    const password = given ?? generatePassword();

    const database = await openDataDir(dataDirOf(values));
    try {
      const { db } = database;
      if (!(await tenantExists(db, tenantsScope([tenantId])))) throw new CliError(`no tenant with id ${tenantId}`);
      if (branchId && !(await isBranchOfTenant(db, tenantId, branchId)))
        throw new CliError(`tenant ${tenantId} has no branch with id ${branchId}`);
      if (await findUserByEmail(db, email)) throw new CliError(`a user with e-mail ${email} already exists`);
      const id = await insertUser(db, {
        tenant_id: tenantId,
        branch_id: branchId ?? null,
        email,
        password_hash: await hashPassword(password),
        user_role: role,
        created_at: new Date().toISOString(),
      });
      process.stdout.write(`created user ${id} (${email}, role ${role}, tenant ${tenantId})\n`);
      if (!given) process.stdout.write(`generated password (shown once): ${password}\n`);
      return EXIT.ok;
    } finally {
      await database.close();
    }
  },
};

export const userPasswordCommand: Command = {
  name: ['user', 'password'],
  summary: "set a user's password (its access tokens stop working)",
  help: `Usage: tars user password --email E [--password P] [--data-dir DIR]

Sets a new password; every access token issued to the user before stops working at once. Without
--password a password is generated and printed once.

  --email E        the user's e-mail
  --password P     the new password, at least 8 characters
${DATA_DIR_HELP}`,
  options: { email: { type: 'string' }, password: { type: 'string' }, 'data-dir': { type: 'string' } },
  positionals: { min: 0, max: 0 },
  async run(values) {
    if (!values.email) throw new CliError('missing --email', EXIT.usage);
    const given = values.password as string | undefined;
    if (given !== undefined && given.length < 8) throw new CliError('--password must be at least 8 characters long', EXIT.usage);
    const password = given ?? generatePassword();
    const database = await openDataDir(dataDirOf(values));
    try {
      const user = await findUserByEmail(database.db, String(values.email));
      if (!user) throw new CliError(`no user with e-mail ${String(values.email)}`);
      // The operator of the installation acts in every tenant.
      const hash = await hashPassword(password);
      if ((await transaction(database.db, (trx) => setPassword(trx, ALL_TENANTS, user.id, hash))) === undefined)
        throw new CliError(`no user with e-mail ${user.email}`);
      process.stdout.write(`password of ${user.email} changed; its earlier access tokens no longer work\n`);
      if (!given) process.stdout.write(`generated password (shown once): ${password}\n`);
      return EXIT.ok;
    } finally {
      await database.close();
    }
  },
};
