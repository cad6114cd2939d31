#!/usr/bin/env -S npx tsx
// Prints the README's generated tables (configuration, roles and permissions) from the code that
// defines them, so the README cannot drift: test/unit/readme.test.ts checks the README contains them.
//   npx tsx scripts/readme-tables.ts
import { SETTINGS } from '../src/config';
import { ALL_PERMISSIONS, effectivePermissions, PERMISSIONS, ROLES } from '../src/access/permissions';

export function configTable(): string {
  const rows = SETTINGS.map(
    ([flag, env, def, what]) => `| ${flag ? `\`${flag}\`` : ''} | \`${env}\` | ${def ? `\`${def}\`` : ''} | ${what} |`,
  );
  return ['| flag | variable | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

export function roleTable(): string {
  const reach = { all: 'every tenant', partner: "its partner's tenants", own: 'its own tenant' } as const;
  const head = `| permission | what it allows | ${ROLES.map((r) => `${r.name} (${r.value})`).join(' | ')} |`;
  const sep = `|---|---|${ROLES.map(() => ':-:').join('|')}|`;
  const sets = ROLES.map((r) => effectivePermissions(r.value, []));
  const rows = ALL_PERMISSIONS.map((p) => `| \`${p}\` | ${PERMISSIONS[p]} | ${sets.map((s) => (s.has(p) ? '✓' : '')).join(' | ')} |`);
  const reachRow = `| *tenants it reaches* | | ${ROLES.map((r) => reach[r.reach]).join(' | ')} |`;
  return [head, sep, reachRow, ...rows].join('\n');
}

if (process.argv[1]?.endsWith('readme-tables.ts')) {
  process.stdout.write(`${configTable()}\n\n${roleTable()}\n`);
}
