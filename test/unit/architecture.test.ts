import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ESLint } from 'eslint';

// The architecture's lint rules (docs/architecture.md, "What lint checks") must bite: each test writes a file that
// breaks one into the source tree, lints it with the repository's own configuration, and removes it.
describe('the architecture rules of npm run lint', function () {
  this.timeout(120_000);
  const root = join(__dirname, '..', '..');
  const written: string[] = [];
  const write = (path: string, text: string) => {
    const file = join(root, path);
    written.push(file);
    writeFileSync(file, text);
    return file;
  };
  /** The rules ESLint reports for these files, as `rule: message` lines. */
  const problems = async (...files: string[]) => {
    const results = await new ESLint({ cwd: root }).lintFiles(files);
    return results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message}`));
  };
  afterEach(() => {
    for (const file of written.splice(0)) rmSync(file, { force: true });
  });

  it('when a file of the base imports from a layer above it, then lint refuses the import', async () => {
    const file = write('src/db/arch-probe-upward.ts', "import type { AppDeps } from '../deps';\n\nexport type Probe = AppDeps;\n");
    expect(await problems(file)).to.deep.equal([
      'import-x/no-restricted-paths: Unexpected path "../deps" imported in restricted zone. the db layer and the base: no import from a layer above (docs/architecture.md, "The layers").',
    ]);
  });

  it('when two files import each other, through types only or values, then lint reports the cycle', async () => {
    const a = write('src/db/arch-probe-a.ts', "import type { B } from './arch-probe-b';\n\nexport type A = { b?: B };\n");
    const b = write('src/db/arch-probe-b.ts', "import type { A } from './arch-probe-a';\n\nexport type B = { a?: A };\n");
    expect(await problems(a, b)).to.deep.equal([
      'tars/no-type-cycle: Import cycle (type imports included): src/db/arch-probe-a.ts → src/db/arch-probe-b.ts → src/db/arch-probe-a.ts',
      'tars/no-type-cycle: Import cycle (type imports included): src/db/arch-probe-b.ts → src/db/arch-probe-a.ts → src/db/arch-probe-b.ts',
    ]);
    // Files of other names: import-x keeps what it read of a file for the process.
    const c = write('src/db/arch-probe-c.ts', "import { d } from './arch-probe-d';\n\nexport const c = (): unknown => d;\n");
    const d = write('src/db/arch-probe-d.ts', "import { c } from './arch-probe-c';\n\nexport const d = (): unknown => c;\n");
    const found = await problems(c, d);
    expect(found.filter((p) => p.startsWith('import-x/no-cycle'))).to.have.length(2);
    expect(found.filter((p) => p.startsWith('tars/no-type-cycle'))).to.have.length(2);
  });

  it("when a module imports another's internals, or a module its MODULES entry does not name, then lint refuses it", async () => {
    const file = write(
      'src/modules/calls/arch-probe.ts',
      "import type { RouteDef } from '../../http/route';\nimport { tenantRoutes } from '../tenants/tenants.routes';\nimport { webhookTypes } from '../webhooks/webhooks.service';\n\nexport const probe = (): unknown => [tenantRoutes, webhookTypes] as unknown as RouteDef;\n",
    );
    expect(await problems(file)).to.deep.equal([
      'import-x/no-restricted-paths: Unexpected path "../tenants/tenants.routes" imported in restricted zone. another module is used through its service (or its repository, for reads), not its other files.',
      'import-x/no-restricted-paths: Unexpected path "../webhooks/webhooks.service" imported in restricted zone. module calls uses only tenants (MODULES in eslint.config.js, docs/architecture.md).',
    ]);
  });

  it('when a service builds a query, then lint refuses it; the same query in a repository passes', async () => {
    const query =
      "import type { Db } from '../../db/database';\n\nexport const probe = (db: Db) => db.selectFrom('tenants').select('id').execute();\n";
    const service = write('src/modules/calls/arch-probe.service.ts', query);
    const repository = write('src/modules/calls/arch-probe.repository.ts', query);
    expect(await problems(service, repository)).to.deep.equal([
      'no-restricted-syntax: A query is built only in a *.repository.ts file or src/db/ (docs/architecture.md, "Where SQL lives").',
    ]);
  });
});
