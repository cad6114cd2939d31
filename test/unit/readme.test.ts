import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { configTable, roleTable } from '../../scripts/readme-tables';

describe('README', () => {
  const readme = readFileSync('README.md', 'utf8');

  it('when settings change, then the configuration table of the README is regenerated (npx tsx scripts/readme-tables.ts)', () => {
    expect(readme).to.include(configTable());
  });

  it('when roles or permissions change, then the role table of the README is regenerated (npx tsx scripts/readme-tables.ts)', () => {
    expect(readme).to.include(roleTable());
  });
});
